import CallAlertControl
import CallAlertDaemon
import CallAlertEngine
import CallAlertInputs
import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `callalert doctor`: checks, one after the other, what a working setup needs and says how to fix what
/// is not: the config loads; the daemon answers on its socket and the socket's mode is sane; the udev rule
/// is installed and keeps ModemManager away; each configured board is found, readable and writable by this
/// user, speaks this protocol and holds the table `patterns.file` builds (a BBC micro:bit is named as one, and
/// told apart from a micro:bit without the CallAlert image); the history is writable; each phone-system source
/// is connected (as the daemon reports) or at least reachable, and so are the MQTT broker and each SIP account.
public struct Doctor<System: DoctorSystem>: Sendable {
  /// The machine.
  public var system: System
  /// The daemon, the ports, the boards.
  public var probes: DoctorProbes
  /// The environment the default paths come from (`HOME`, `XDG_*`).
  public var environment: [String: String]
  /// The version that reports.
  public var version: String

  /// A doctor for `system`.
  public init(
    system: System, probes: DoctorProbes, environment: [String: String] = ProcessInfo.processInfo.environment,
    version: String
  ) {
    self.system = system
    self.probes = probes
    self.environment = environment
    self.version = version
  }

  /// Runs every check. `configPath` as `callalert run --config` takes it: nil means the default path when
  /// a file is there, else the built-in defaults.
  public func run(configPath: String?, socketPath: String? = nil) async -> DoctorReport {
    var findings: [DoctorFinding] = []
    let (configuration, configFinding) = loadConfiguration(configPath)
    findings.append(configFinding)
    var effective = configuration ?? DaemonConfiguration.defaults(environment: environment, userID: system.user.id)
    if let socketPath { effective.socketPath = socketPath }

    let status = await probes.daemonStatus(effective.socketPath)
    findings.append(daemonFinding(status, socketPath: effective.socketPath))
    findings.append(socketFinding(effective, daemonAnswered: (try? status.get()) != nil))

    let udev = udevFindings()
    findings += udev.findings
    for board in boardsToCheck(effective, daemon: try? status.get()) {
      findings += await boardFindings(
        board, configuration: effective, daemon: try? status.get(), udevRuleInstalled: udev.installed)
    }
    findings.append(historyFinding(effective.historyPath))
    if configuration == nil {
      findings.append(
        DoctorFinding("sources", .skipped, "not checked: the config does not load, so its sources are unknown"))
    } else {
      let others = [effective.mqtt.map { _ in "MQTT" }, effective.sipAccounts.isEmpty ? nil : "SIP"].compactMap { $0 }
      findings += await sourceFindings(effective.sources, daemon: try? status.get(), others: others)
      findings += await serviceFindings(effective, daemon: try? status.get())
    }
    return DoctorReport(findings: findings, version: version)
  }

  /// The boards a running daemon uses, where it looks for them (its `--port` may differ from the config's);
  /// without a daemon, the config's.
  func boardsToCheck(_ configuration: DaemonConfiguration, daemon: StatusReport?) -> [AlertBoard] {
    guard let daemon, !daemon.boards.isEmpty else { return configuration.engine.boards }
    return daemon.boards.map { board in
      let configured = configuration.engine.boards.first { $0.name == board.name }
      guard let place = board.port else { return configured ?? AlertBoard(name: board.name, port: "auto") }
      var used = AlertBoard(name: board.name, vibrateOnly: configured?.vibrateOnly ?? false)
      if place.hasPrefix("serial ") {
        used.serialNumber = String(place.dropFirst("serial ".count))
      } else {
        used.port = place
      }
      return used
    }
  }

  /// The config: loaded, or each error with its place.
  func loadConfiguration(_ configPath: String?) -> (DaemonConfiguration?, DoctorFinding) {
    let path = configPath ?? DaemonConfiguration.defaultConfigPath(environment: environment)
    guard configPath != nil || system.facts(path) != nil else {
      return (
        DaemonConfiguration.defaults(environment: environment, userID: system.user.id),
        DoctorFinding(
          "config", .ok, "no config file at \(path): the built-in defaults (one board, found automatically)",
          fix: nil)
      )
    }
    do {
      let configuration = try ConfigurationFile.load(path: path, environment: environment, userID: system.user.id)
      let boards = configuration.engine.boards.map(\.name).joined(separator: ", ")
      return (configuration, DoctorFinding("config", .ok, "\(path) loads: board(s) \(boards)"))
    } catch {
      let problems = error.errors.map(\.description)
      let shown = problems.prefix(5).joined(separator: "; ") + (problems.count > 5 ? "; …" : "")
      return (
        nil,
        DoctorFinding(
          "config", .error, "\(path) does not load (\(problems.count) problem(s)): \(shown)",
          fix:
            "edit \(path) at the places named (docs/CONFIG.md lists every key; the example is "
            + "config.example.yaml in share/doc/callalert where callalert is installed); the checks below use "
            + "the built-in defaults")
      )
    }
  }

  /// The history: the file writable, or its folder creatable.
  func historyFinding(_ path: String) -> DoctorFinding {
    let folder = PathText.deletingLastComponent(path)
    if let facts = system.facts(path) {
      guard facts.kind == .regular else {
        return DoctorFinding("history", .error, "\(path) is not a file", fix: "set history.path to a file's path")
      }
      // SQLite writes its journal next to the database: the folder must be writable too.
      if system.canReadWrite(path) && system.canWrite(folder) {
        return DoctorFinding("history", .ok, "\(path) is writable")
      }
      return DoctorFinding(
        "history", .error, "\(path) (or its folder, for SQLite's journal) is not writable by \(system.user.name)",
        fix: "sudo chown -R \(system.user.name) \(folder), or set history.path in the config")
    }
    var existing = folder
    while system.facts(existing) == nil && existing != "/" && !existing.isEmpty {
      existing = PathText.deletingLastComponent(existing)
    }
    if system.canWrite(existing) {
      return DoctorFinding(
        "history", .ok, "\(path) does not exist yet; the daemon creates it (\(existing) is writable)")
    }
    return DoctorFinding(
      "history", .error, "\(path) cannot be created: \(existing) is not writable by \(system.user.name)",
      fix: "sudo mkdir -p \(folder) && sudo chown \(system.user.name) \(folder), or set history.path in the config")
  }
}

extension String {
  /// Octal permission bits, `0660`.
  static func octal(_ mode: UInt16) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
  }
}
