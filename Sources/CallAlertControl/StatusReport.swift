import CallAlertEngine
import CallAlertProtocol
import CallAlertValues

/// `callalert status` as JSON: active calls, missed calls, do-not-disturb, boards.
public struct StatusReport: Codable, Equatable, Sendable {
  /// A ringing (or pending) call.
  public struct Call: Codable, Equatable, Sendable {
    /// The call id.
    public var id: String
    /// The caller's number (E.164 when it could be read).
    public var caller: String?
    /// The caller's name.
    public var name: String?
    /// The interruption level.
    public var level: String
    /// How long it may still ring.
    public var remainingMs: UInt64
    /// The boards its rules select.
    public var boards: [String]
    /// The boards it plays on now.
    public var playingOn: [String]
    /// Whether it rings with the motor only.
    public var silent: Bool
    /// Where it came from, the call budget's source (`socket`, `mqtt`, `sip:<account>`...); absent when not said.
    public var source: String? = nil
    enum CodingKeys: String, CodingKey {
      case id, caller, name, level, remainingMs = "remaining_ms", boards, playingOn = "playing_on", silent, source
    }
  }

  /// A board as the daemon knows it.
  public struct Board: Codable, Equatable, Sendable {
    /// The board's name in the configuration.
    public var name: String
    /// Whether the daemon has a session with it.
    public var connected: Bool
    /// Its serial number, while connected.
    public var serial: String?
    /// Its firmware version, while connected.
    public var firmware: String?
    /// Its pattern table's version, while connected.
    public var tableVersion: UInt32?
    /// The call it plays now.
    public var playingCall: String?
    /// How its link stands: `connecting`, `connected`, `unresponsive` or `disconnected`.
    public var link: String?
    /// Where the daemon looks for it, as configured: a port, `auto`, or `serial NUMBER`.
    public var port: String?
    /// Why it is not connected: the daemon's last failure to open or greet it, with what to do.
    public var problem: String?
    /// A light's device while it is open (`Kuando Busylight 27bb:3bcd at /dev/hidraw3`); a CallAlert board
    /// says who it is with `serial` and `firmware` instead.
    public var device: String? = nil

    /// Creates a board's entry.
    public init(
      name: String, connected: Bool, serial: String? = nil, firmware: String? = nil, tableVersion: UInt32? = nil,
      playingCall: String? = nil, link: String? = nil, port: String? = nil, problem: String? = nil,
      device: String? = nil
    ) {
      self.name = name
      self.connected = connected
      self.serial = serial
      self.firmware = firmware
      self.tableVersion = tableVersion
      self.playingCall = playingCall
      self.link = link
      self.port = port
      self.problem = problem
      self.device = device
    }

    enum CodingKeys: String, CodingKey {
      case name, connected, serial, firmware, tableVersion = "table_version", playingCall = "playing_call", link
      case port, problem, device
    }
  }

  /// Do-not-disturb now.
  public struct DoNotDisturb: Codable, Equatable, Sendable {
    /// The mode in force: the one switched at run time, else the configured one. (It was the configured mode
    /// alone, so `PUT /v1/dnd {"mode":"on"}` read back `"mode":"off"`.)
    public var mode: String
    /// The config file's mode, which a restart goes back to.
    public var configured: String?
    /// A mode switched at run time, if any.
    public var override: String?
    /// Whether it holds calls back now.
    public var active: Bool
    /// Whether silent mode (motor only) is on.
    public var silent: Bool
    /// When the switched mode ends and the configured one applies again (ISO 8601, UTC); absent: it lasts
    /// until switched again.
    public var until: String? = nil
  }

  /// Calls ringing or waiting for a board.
  public var calls: [Call]
  /// Missed calls not yet acknowledged.
  public var missed: [Call]
  /// Do-not-disturb now.
  public var doNotDisturb: DoNotDisturb
  /// Every configured board.
  public var boards: [Board]
  /// Whether the call history is written (`ok`) or `degraded`, with its pending and lost records.
  public var history: HistoryHealth?
  /// Every phone-system source, with its connection's health; nil when the config names none.
  public var sources: [Source]?

  enum CodingKeys: String, CodingKey {
    case calls, missed, doNotDisturb = "do_not_disturb", boards, history, sources
  }

  /// A phone-system source and how its connection is doing.
  public struct Source: Codable, Equatable, Sendable {
    /// Its name in the config.
    public var name: String
    /// `fritzbox` or `ami`.
    public var kind: String
    /// `host:port`.
    public var address: String
    /// `connecting`, `connected` or `failing`.
    public var state: String
    /// Why it is failing.
    public var reason: String?
    /// Milliseconds until the next attempt, while failing.
    public var nextAttemptMs: UInt64?
    /// Attempts that failed in a row.
    public var failures: Int

    /// Creates a source's entry.
    public init(
      name: String, kind: String, address: String, state: String, reason: String? = nil,
      nextAttemptMs: UInt64? = nil, failures: Int = 0
    ) {
      self.name = name
      self.kind = kind
      self.address = address
      self.state = state
      self.reason = reason
      self.nextAttemptMs = nextAttemptMs
      self.failures = failures
    }

    enum CodingKeys: String, CodingKey {
      case name, kind, address, state, reason, nextAttemptMs = "next_attempt_ms", failures
    }
  }

  /// The report of an engine snapshot, with what the board sessions and the history writer know.
  public init(
    _ snapshot: EngineSnapshot, boardInfos: [String: BoardInfo], boardLinks: [String: String] = [:],
    boardProblems: [String: String] = [:], boardPorts: [String: String] = [:], boardDevices: [String: String] = [:],
    history: HistoryHealth? = nil
  ) {
    self.history = history
    calls = snapshot.activeCalls.map {
      Call(
        id: $0.call.id, caller: $0.callerE164 ?? $0.call.callerNumber, name: $0.call.callerName,
        level: $0.call.level.rawValue,
        remainingMs: $0.remainingMs, boards: $0.boards, playingOn: $0.playingOn, silent: $0.silent,
        source: $0.call.source?.rawValue)
    }
    missed = snapshot.missedCalls.map {
      Call(
        id: $0.id, caller: $0.callerNumber, name: $0.callerName, level: $0.level.rawValue, remainingMs: 0, boards: [],
        playingOn: [], silent: false)
    }
    let dnd = snapshot.doNotDisturb
    doNotDisturb = DoNotDisturb(
      mode: (dnd.override ?? dnd.configuredMode).rawValue, configured: dnd.configuredMode.rawValue,
      override: dnd.override?.rawValue, active: dnd.isActive, silent: dnd.silent,
      until: dnd.until.map(Timestamp.iso8601))
    boards = snapshot.boards.map { board in
      let info = boardInfos[board.name]
      return Board(
        name: board.name, connected: board.connected, serial: info.map { String(decoding: $0.serial, as: UTF8.self) },
        firmware: info.map { "\($0.firmware.major).\($0.firmware.minor).\($0.firmware.patch)" },
        tableVersion: info.map(\.table.version), playingCall: board.token == nil ? nil : board.callID,
        link: boardLinks[board.name], port: boardPorts[board.name],
        problem: board.connected ? nil : boardProblems[board.name], device: boardDevices[board.name])
    }
  }
}
