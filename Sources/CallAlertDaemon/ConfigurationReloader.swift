import CallAlertEngine
import CallAlertValues
import Logging
import Synchronization

/// The daemon's configuration while it runs, and its reload (SIGHUP, or a `reload` request on the control
/// socket: both go through ``reload(trigger:)``). A good file is applied without dropping a call and the log
/// says what changed; a bad one is refused with its errors (file:line:column) and the running one stays.
final class ConfigurationReloader: Sendable {
  private let options: DaemonOptions
  private let logger: Logger
  private let apply: @Sendable (DaemonConfiguration) async -> Void
  private let state: Mutex<DaemonConfiguration>

  /// - Parameter apply: hands a new configuration to the engine (calls keep ringing).
  init(
    _ configuration: DaemonConfiguration, options: DaemonOptions, logger: Logger,
    apply: @escaping @Sendable (DaemonConfiguration) async -> Void
  ) {
    state = Mutex(configuration)
    self.options = options
    self.logger = logger
    self.apply = apply
  }

  /// The configuration in force.
  var current: DaemonConfiguration { state.withLock { $0 } }

  /// Reads the config file again; returns what changed, or throws the file's errors (nothing is changed then).
  @discardableResult
  func reload(trigger: String) async throws(DaemonStartError) -> ConfigurationChange {
    let reloaded: DaemonConfiguration
    do {
      reloaded = try Daemon.configuration(for: options)
    } catch {
      logger.error("config reload (\(trigger)) refused; the running configuration stays: \(error)")
      throw error
    }
    let change = ConfigurationChange(from: current, to: reloaded)
    var applied = reloaded
    // What is bound at start stays as it is until a restart; the log says so.
    applied.socketPath = current.socketPath
    applied.socketMode = current.socketMode
    applied.historyPath = current.historyPath
    state.withLock { $0 = applied }
    await apply(applied)
    logger.notice("config reloaded (\(trigger)): \(change)")
    return change
  }
}

/// What differs between two configurations, by the config file's names.
struct ConfigurationChange: CustomStringConvertible, Equatable {
  /// Fields applied at once.
  var applied: [String]
  /// Fields that take effect at the next start only.
  var needRestart: [String]

  init(from old: DaemonConfiguration, to new: DaemonConfiguration) {
    var changed = Self.differences(old.engine, new.engine)
    // `patternNameUses` only records where the names above are written: it moves with every edited line.
    changed += Self.differences(old, new).filter { $0 != "engine" && $0 != "patternNameUses" }
    needRestart = changed.filter { Self.boundAtStart.contains($0) }
    applied = changed.filter { !Self.boundAtStart.contains($0) }
    // Each board has its link from the start: a board added or removed needs a restart to be connected or let go,
    // and so does a board's new port or serial number (its link keeps the one it opened).
    if Set(old.engine.boards.map(\.name)) != Set(new.engine.boards.map(\.name)) {
      needRestart.append("the list of boards")
    }
    let before = Dictionary(old.engine.boards.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    for board in new.engine.boards {
      guard let was = before[board.name] else { continue }
      if was.port != board.port { needRestart.append("boards.\(board.name).port") }
      if was.serialNumber != board.serialNumber { needRestart.append("boards.\(board.name).serial") }
    }
  }

  /// What the daemon sets up once, at start: the socket, the history, the pattern file (compiled and flashed
  /// to the boards), and the call sources and services, each a connection or a listener of its own.
  static let boundAtStart: Set = [
    "socket.path", "socket.mode", "socket.group", "socket.allow_others", "history.path", "history.keep_days",
    "patterns.file", "sources", "http", "mqtt", "sip", "kdeconnect",
  ]

  /// `changed cap, do_not_disturb; socket.path takes effect at the next start` or `nothing changed`.
  var description: String {
    if applied.isEmpty && needRestart.isEmpty { return "nothing changed" }
    var parts: [String] = []
    if !applied.isEmpty { parts.append("changed \(applied.joined(separator: ", "))") }
    if !needRestart.isEmpty {
      parts.append("\(needRestart.joined(separator: ", ")) take(s) effect at the next start")
    }
    return parts.joined(separator: "; ")
  }

  /// The config file's name for each stored property (others keep their Swift name).
  private static let names = [
    "capMs": "cap", "tombstoneMs": "tombstone", "boards": "boards", "patternRules": "patterns.rules",
    "defaultPattern": "patterns.default", "doNotDisturb": "do_not_disturb", "defaultRegion": "region",
    "missedIndicator": "missed_indicator", "socketPath": "socket.path", "socketMode": "socket.mode",
    "socketAllowOthers": "socket.allow_others", "socketGroup": "socket.group", "historyPath": "history.path",
    "historyKeepDays": "history.keep_days", "eventsFormat": "events", "patternsFile": "patterns.file",
    "pushRules": "push_rules", "sources": "sources", "http": "http", "mqtt": "mqtt", "sipAccounts": "sip",
    "kdeConnect": "kdeconnect",
  ]

  /// The stored properties whose values differ, in declaration order.
  private static func differences<Value>(_ old: Value, _ new: Value) -> [String] {
    let newValues = Mirror(reflecting: new).children.map { String(reflecting: $0.value) }
    return zip(Mirror(reflecting: old).children, newValues).compactMap { child, newValue in
      guard let label = child.label, String(reflecting: child.value) != newValue else { return nil }
      return names[label] ?? label
    }
  }
}
