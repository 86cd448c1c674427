/// The kinds of phone system a source can be.
public enum BridgeKind: String, CaseIterable, Equatable, Sendable {
  /// An AVM FRITZ!Box's call monitor (TCP 1012, switched on with `#96*5*`).
  case fritzbox
  /// The Asterisk Manager Interface (TCP 5038), as Asterisk and FreePBX run it.
  case ami

  /// The port the phone system listens on unless configured otherwise.
  public var defaultPort: Int {
    switch self {
    case .fritzbox: 1012
    case .ami: 5038
    }
  }
}

/// One phone system the daemon listens to: an entry of the config's `sources:` list.
public struct BridgeSource: Equatable, Sendable {
  /// The source's name in status, logs and call ids.
  public var name: String
  /// What it is.
  public var kind: BridgeKind
  /// The host name or address to connect to.
  public var host: String
  /// The TCP port.
  public var port: Int
  /// AMI: the manager user.
  public var username: String?
  /// AMI: the file holding the manager secret; it must be readable by its owner only (mode 0600).
  public var secretFile: String?
  /// AMI: endpoints whose channels are watched (`PJSIP/201`); a channel of one entering Ringing starts a call.
  public var endpoints: [String]
  /// AMI: extension hints watched through `ExtensionStatus` (`201` or `201@ext-local`).
  public var extensions: [String]
  /// Which calls ring which boards with which pattern; the first that matches wins. Empty: every call rings
  /// with the rules' choice.
  public var filters: [BridgeFilter]

  /// Creates a source.
  public init(
    name: String, kind: BridgeKind, host: String, port: Int? = nil, username: String? = nil,
    secretFile: String? = nil, endpoints: [String] = [], extensions: [String] = [], filters: [BridgeFilter] = []
  ) {
    self.name = name
    self.kind = kind
    self.host = host
    self.port = port ?? kind.defaultPort
    self.username = username
    self.secretFile = secretFile
    self.endpoints = endpoints
    self.extensions = extensions
    self.filters = filters
  }
}

/// Which of a source's calls ring, where, and how. Every criterion given must match; an empty one matches all.
public struct BridgeFilter: Equatable, Sendable {
  /// Called numbers (FRITZ!Box `to`, Asterisk dialled extension); compared by their digits.
  public var called: [String]
  /// Lines (FRITZ!Box `SIP0`, `POTS`...).
  public var lines: [String]
  /// Extensions or endpoints (`PJSIP/201`, `201@ext-local`, or just `201`).
  public var extensions: [String]
  /// Caller numbers; compared in E.164 with the config's region.
  public var callers: [String]
  /// The boards to ring, by name; empty: the pattern rules decide.
  public var boards: [String]
  /// A pattern name for these calls (a pattern rule for the caller still comes first); nil: the rules decide.
  public var pattern: String?
  /// When true, matching calls never ring (`ignore: true`): a fax line, a doorbell.
  public var ignore: Bool

  /// Creates a filter.
  public init(
    called: [String] = [], lines: [String] = [], extensions: [String] = [], callers: [String] = [],
    boards: [String] = [], pattern: String? = nil, ignore: Bool = false
  ) {
    self.called = called
    self.lines = lines
    self.extensions = extensions
    self.callers = callers
    self.boards = boards
    self.pattern = pattern
    self.ignore = ignore
  }
}
