import CallAlertEngine

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Everything `callalert run` reads from its config file: the engine's configuration and the daemon's own
/// settings. Every field has a default, so an empty file is a valid configuration.
public struct DaemonConfiguration: Equatable, Sendable {
  /// The engine's configuration: cap, boards, pattern rules, do-not-disturb, region, missed indicator.
  public var engine: EngineConfiguration
  /// The path of the Unix control socket.
  public var socketPath: String
  /// The control socket's permission bits (default `0o600`: only the owner may connect).
  public var socketMode: UInt16
  /// The group whose members may use the control socket besides the user (`socket.group`); nil: nobody else.
  public var socketGroup: UInt32? = nil
  /// The path of the call-history database (SQLite).
  public var historyPath: String
  /// How many days calls stay in the history (`history.keep_days`); older ones are deleted at start and
  /// daily, except missed calls nobody acknowledged.
  public var historyKeepDays: Int = DaemonConfiguration.defaultHistoryKeepDays
  /// How events are written to standard output.
  public var eventsFormat: EventsFormat
  /// A pattern file (see docs/PATTERNS.md) to flash to the boards and to know pattern names from; nil: none.
  public var patternsFile: String?
  /// Rules for push payload shapes the presets do not know, tried in order before the presets.
  public var pushRules: [PushRule]
  /// The pattern names the file uses (`patterns.default`, rules), with their places; see
  /// ``unknownPatternNames(known:)``.
  public var patternNameUses: [PatternNameUse] = []
  /// Phone systems to listen to (FRITZ!Box call monitor, Asterisk AMI); see docs/SOURCES.md.
  public var sources: [BridgeSource] = []
  /// The HTTP API (`http:`, or `callalert run --http`); nil: off.
  public var http: HTTPSettings? = nil
  /// This host as a KDE Connect device, for phones' calls (`kdeconnect:`, docs/PHONE.md); nil: off.
  public var kdeConnect: KDEConnectSettings? = nil
  /// The MQTT broker this host shares calls and state through; nil: none (docs/MQTT.md).
  public var mqtt: MQTTSettings? = nil
  /// SIP ring extensions (`sip: accounts:`); see docs/SIP.md.
  public var sipAccounts: [SIPAccount] = []

  /// The boards when the file lists none: one board, found automatically.
  public static let defaultBoards = [AlertBoard(name: "board", port: "auto")]
  /// The default socket permission bits.
  public static let defaultSocketMode: UInt16 = 0o600
  /// How many days the history keeps calls when the config does not say.
  public static let defaultHistoryKeepDays = 90
  /// The longest `history.keep_days` (100 years).
  public static let historyKeepDaysRange = 1...36_500

  /// Creates a configuration.
  public init(
    engine: EngineConfiguration = EngineConfiguration(boards: DaemonConfiguration.defaultBoards),
    socketPath: String, socketMode: UInt16 = DaemonConfiguration.defaultSocketMode, historyPath: String,
    eventsFormat: EventsFormat = .json, patternsFile: String? = nil, pushRules: [PushRule] = []
  ) {
    self.engine = engine
    self.socketPath = socketPath
    self.socketMode = socketMode
    self.historyPath = historyPath
    self.eventsFormat = eventsFormat
    self.patternsFile = patternsFile
    self.pushRules = pushRules
  }

  /// The configuration of an empty file, with paths from `environment`.
  public static func defaults(
    environment: [String: String] = ProcessInfo.processInfo.environment, userID: UInt32 = getuid()
  ) -> DaemonConfiguration {
    DaemonConfiguration(
      socketPath: defaultSocketPath(environment: environment, userID: userID),
      historyPath: defaultHistoryPath(environment: environment))
  }

  /// `$XDG_RUNTIME_DIR/callalert.sock` when that is set to an absolute path, else `callalert.sock` in
  /// ``privateSocketDirectory(userID:)``: never a name in shared `/tmp`, where another user could listen first.
  public static func defaultSocketPath(
    environment: [String: String] = ProcessInfo.processInfo.environment, userID: UInt32 = getuid()
  ) -> String {
    if let runtime = absolute(environment["XDG_RUNTIME_DIR"]) { return runtime + "/callalert.sock" }
    return privateSocketDirectory(userID: userID) + "/callalert.sock"
  }

  /// `/tmp/callalert-<uid>`: the socket's directory without `XDG_RUNTIME_DIR`. The daemon creates it with mode
  /// 0700 and refuses it unless it is a real directory, owned by the user, that nobody else may enter.
  public static func privateSocketDirectory(userID: UInt32 = getuid()) -> String {
    "/tmp/callalert-\(userID)"
  }

  /// `$XDG_STATE_HOME/callalert/history.sqlite` when that is set to an absolute path, else
  /// `~/.local/state/callalert/history.sqlite`.
  public static func defaultHistoryPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let state = absolute(environment["XDG_STATE_HOME"]) { return state + "/callalert/history.sqlite" }
    return homeDirectory(environment: environment) + "/.local/state/callalert/history.sqlite"
  }

  /// `$XDG_CONFIG_HOME/callalert/config.yaml`, else `~/.config/callalert/config.yaml`: where the daemon looks
  /// when no `--config` is given.
  public static func defaultConfigPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let config = absolute(environment["XDG_CONFIG_HOME"]) { return config + "/callalert/config.yaml" }
    return homeDirectory(environment: environment) + "/.config/callalert/config.yaml"
  }

  /// `$HOME`, else the account's home directory.
  package static func homeDirectory(environment: [String: String]) -> String {
    let home =
      environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
    return home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
  }

  /// The XDG base-directory rule: a relative or empty value is ignored.
  private static func absolute(_ path: String?) -> String? {
    guard let path, path.hasPrefix("/") else { return nil }
    return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
  }
}

/// How the daemon writes events to standard output.
public enum EventsFormat: String, CaseIterable, Equatable, Sendable {
  /// One JSON object per line (see `EventLine.json(_:at:)` in CallAlertControl).
  case json
  /// One readable line per event (see `EventLine.text(_:at:timeZone:)` in CallAlertControl).
  case text
}
