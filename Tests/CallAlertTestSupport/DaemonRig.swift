import CallAlertDaemon
import CallAlertSimulation
import CallAlertVirtualBoard
import Foundation
import Logging
import ServiceLifecycle

/// The daemon in this process as `callalert run` runs it, on a config written into a folder of its own (its
/// control socket and history there too): the one place the suites start a daemon, collect its event lines,
/// send it control requests and stop it. The suites' own rigs (SIP, KDE Connect, MQTT hosts, HTTP) are this
/// rig with their source's config and helpers.
public struct DaemonRig: Sendable {
  /// The daemon's folder: config, control socket, history.
  public let directory: URL
  /// Its event lines.
  public let events: LineLog
  /// The running daemon.
  public let group: ServiceGroup
  private let running: Task<Void, any Error>

  /// The control socket's path: `control.sock` in ``directory``, as ``files(in:)`` writes it.
  public var socket: String { directory.appendingPathComponent("control.sock").path }
  /// The config file's path.
  public var configPath: String { directory.appendingPathComponent("config.yaml").path }

  /// The config's `socket:` and `history:` sections for a daemon in `directory`, which every rig's config has.
  public static func files(in directory: URL) -> String {
    """
    socket:
      path: \(directory.appendingPathComponent("control.sock").path)
    history:
      path: \(directory.appendingPathComponent("history.sqlite").path)
    """
  }

  /// A new private folder for a daemon, named after `name`.
  public static func makeDirectory(_ name: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// A logger that keeps quiet below warnings unless `CALLALERT_TEST_LOG` is set.
  public static func logger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = ProcessInfo.processInfo.environment["CALLALERT_TEST_LOG"] == nil ? .warning : .debug
    return logger
  }

  /// Starts a daemon in `directory` (a new one named after `name` when nil) on the config `config` returns
  /// for that folder (with ``files(in:)`` in it). Its boards come from `boards`: in-process virtual boards by
  /// default (`run --simulate`), each handed to `onBoard` as it is made; nil, the ports the config names. Its
  /// event lines go to ``events`` and to `eventSink`; `configure` sets any other option of the run.
  public static func start(
    _ name: String, in directory: URL? = nil, config: (URL) -> String, boards: BoardSource? = .virtualBoards(),
    addOns: [DaemonAddOn] = [], logger: Logger? = nil, configure: (inout DaemonOptions) -> Void = { _ in },
    onBoard: (@Sendable (String, VirtualBoardRunner<ContinuousClock>) -> Void)? = nil,
    eventSink: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws -> DaemonRig {
    let directory = try directory ?? makeDirectory(name)
    let configPath = directory.appendingPathComponent("config.yaml").path
    try config(directory).write(toFile: configPath, atomically: true, encoding: .utf8)
    var options = DaemonOptions(configPath: configPath, simulate: boards != nil, readStandardInput: false)
    options.boardSource = boards
    options.addOns = addOns
    configure(&options)
    let events = LineLog()
    let logger = logger ?? Self.logger("callalert-\(name)")
    let make = {
      try await Daemon.makeServiceGroup(
        options: options, logger: logger,
        eventSink: { line in
          events.append(line)
          eventSink(line)
        })
    }
    // Without `onBoard`, a caller's own binding of `VirtualBoards.created` holds.
    let group: ServiceGroup
    if let onBoard {
      group = try await VirtualBoards.$created.withValue(onBoard, operation: make)
    } else {
      group = try await make()
    }
    let running = Task { try await group.run() }
    return DaemonRig(directory: directory, events: events, group: group, running: running)
  }

  private init(directory: URL, events: LineLog, group: ServiceGroup, running: Task<Void, any Error>) {
    self.directory = directory
    self.events = events
    self.group = group
    self.running = running
  }

  /// Sends a control request line; the answer line.
  public func request(_ line: String) async throws -> String {
    try await ControlSocketClient.request(line, path: socket)
  }

  /// `status` as JSON text.
  public func status() async throws -> String {
    try await request(#"{"type":"status"}"#)
  }

  /// Waits until `status` says a board is connected, asking every 50 ms for at most `seconds`; the last answer.
  /// A call that comes before the board rings with no board first, so the tests' calls come once it is there.
  @discardableResult
  public func boardConnected(within seconds: Double = 30) async -> String {
    let rig = self
    return await answer(within: seconds) {
      (try? await rig.status()) ?? ""
    } until: {
      $0.contains(#""connected":true"#)
    }
  }

  /// The first event line containing every one of `parts`, within `seconds`.
  public func event(_ parts: String..., within seconds: Double = 20) async -> String? {
    await events.first(within: seconds) { line in parts.allSatisfy { line.contains($0) } }
  }

  /// Stops the daemon (gracefully, as SIGTERM does) and removes its folder, unless `keepingDirectory` (to start
  /// again in it, as after a restart).
  public func stop(keepingDirectory: Bool = false) async throws {
    await group.triggerGracefulShutdown()
    try await running.value
    if !keepingDirectory { try? FileManager.default.removeItem(at: directory) }
  }
}
