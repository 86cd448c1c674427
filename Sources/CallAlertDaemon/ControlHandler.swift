import CallAlertEngine
import CallAlertHistory
import CallAlertInputs
import CallAlertProtocol
import Foundation
import Logging

/// Answers control requests, from the socket and from standard input alike: one JSON line in, one out.
/// Bad input gets an error naming the place; nothing it carried is half-applied.
struct ControlHandler<C: Clock>: Sendable where C.Duration == Duration {
  let service: AlertService<C>
  let history: HistoryWriter
  let reloader: ConfigurationReloader
  let logger: Logger
  /// The configuration in force (reloads replace it).
  var configuration: DaemonConfiguration { reloader.current }
  /// The phone-system sources, for their health in `status`.
  var bridges: BridgeService<C>? = nil

  func handle(_ line: String, lineNumber: Int, source: String) async -> String {
    await handle(Array(line.utf8), lineNumber: lineNumber, source: source)
  }

  /// Answers one line as the bytes that arrived: invalid UTF-8 is refused, never replaced.
  func handle(_ line: [UInt8], lineNumber: Int, source: String) async -> String {
    let request: ControlRequest
    do {
      request = try ControlRequest.parse(bytes: line, source: source, lineNumber: lineNumber)
    } catch {
      logger.notice("rejected \(error)")
      return ControlResponse.failure(error)
    }
    switch request {
    case .input(let input):
      return answer(RequestOutcome.of(input, events: await service.submit(input)), source, lineNumber)
    case .push(let payload, let origin):
      do {
        let push = try PushPayload.parse(
          json: payload, rules: configuration.pushRules, receivedAt: Date(), origin: origin)
        // Id-less calls are matched per input, across the socket's connections (`socket#3` is `socket`).
        let input = String(source.prefix { $0 != "#" })
        return answer(await service.submit(push, source: input), source, lineNumber)
      } catch {
        logger.notice("rejected push \(error)")
        return ControlResponse.failure(error)
      }
    case .status:
      let snapshot = await service.snapshot()
      let infos = await service.boardInfos()
      let links = await service.boardLinks()
      var report = StatusReport(snapshot, boardInfos: infos, boardLinks: links, history: history.health)
      report.sources = await bridges?.health()
      return ControlResponse.ok("status", report)
    case .history(let missedOnly, let limit):
      // Never ok while records wait in memory or were lost: the calls read, and what is missing.
      return await history.calls(missedOnly: missedOnly, limit: limit).controlLine
    case .reload:
      do {
        try await reloader.reload(trigger: "\(source):\(lineNumber)")
        return ControlResponse.ok()
      } catch {
        return ControlResponse.failure("reload: \(error)")
      }
    }
  }
}

extension ControlHandler {
  /// The answer for what a request did; a call refused because too many ring is a failure.
  func answer(_ outcome: RequestOutcome, _ source: String, _ lineNumber: Int) -> String {
    if outcome.result == .ignored { logger.info("push \(source):\(lineNumber) \(outcome.text)") }
    guard outcome.result != .refused else {
      logger.notice("refused \(source):\(lineNumber): \(outcome.text)")
      return ControlResponse.failure("\(source):\(lineNumber): \(outcome.text)")
    }
    return ControlResponse.ok(outcome)
  }
}

/// `callalert status` as JSON: active calls, missed calls, do-not-disturb, boards.
public struct StatusReport: Codable, Sendable {
  /// A ringing (or pending) call.
  public struct Call: Codable, Sendable {
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
    enum CodingKeys: String, CodingKey {
      case id, caller, name, level, remainingMs = "remaining_ms", boards, playingOn = "playing_on", silent
    }
  }

  /// A board as the daemon knows it.
  public struct Board: Codable, Sendable {
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
    enum CodingKeys: String, CodingKey {
      case name, connected, serial, firmware, tableVersion = "table_version", playingCall = "playing_call", link
    }
  }

  /// Do-not-disturb now.
  public struct DoNotDisturb: Codable, Sendable {
    /// The configured mode.
    public var mode: String
    /// A mode switched at run time, if any.
    public var override: String?
    /// Whether it holds calls back now.
    public var active: Bool
    /// Whether silent mode (motor only) is on.
    public var silent: Bool
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
  /// Every phone-system source, with its connection's health.
  public var sources: [Source]?

  enum CodingKeys: String, CodingKey {
    case calls, missed, doNotDisturb = "do_not_disturb", boards, history, sources
  }

  init(
    _ snapshot: EngineSnapshot, boardInfos: [String: BoardInfo], boardLinks: [String: String] = [:],
    history: HistoryHealth? = nil
  ) {
    self.history = history
    calls = snapshot.activeCalls.map {
      Call(
        id: $0.call.id, caller: $0.callerE164 ?? $0.call.callerNumber, name: $0.call.callerName,
        level: $0.call.level.rawValue,
        remainingMs: $0.remainingMs, boards: $0.boards, playingOn: $0.playingOn, silent: $0.silent)
    }
    missed = snapshot.missedCalls.map {
      Call(
        id: $0.id, caller: $0.callerNumber, name: $0.callerName, level: $0.level.rawValue, remainingMs: 0, boards: [],
        playingOn: [], silent: false)
    }
    let dnd = snapshot.doNotDisturb
    doNotDisturb = DoNotDisturb(
      mode: dnd.configuredMode.rawValue, override: dnd.override?.rawValue, active: dnd.isActive, silent: dnd.silent)
    boards = snapshot.boards.map { board in
      let info = boardInfos[board.name]
      return Board(
        name: board.name, connected: board.connected, serial: info.map { String(decoding: $0.serial, as: UTF8.self) },
        firmware: info.map { "\($0.firmware.major).\($0.firmware.minor).\($0.firmware.patch)" },
        tableVersion: info.map(\.table.version), playingCall: board.token == nil ? nil : board.callID,
        link: boardLinks[board.name])
    }
  }
}
