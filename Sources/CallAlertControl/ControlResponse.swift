import CallAlertText
import CallAlertValues

/// One answer of the control protocol, as a value: what the daemon's ``ControlRequest`` handler returns, and
/// what ``ControlClient`` gives back. Written to the wire only at the edge (``line``), one JSON object per
/// line: `{"ok":true,...}` or `{"ok":false,"error":"..."}` (docs/CONFIG.md, "Control protocol").
public enum ControlResponse: Equatable, Sendable {
  /// Done, nothing more to say: `{"ok":true}` (`dnd`, `silent`, `reload`).
  case ok
  /// What a `call`, `hangup`, `answered`, `ack` or `push` request did:
  /// `{"ok":true,"outcome":"ringing","id":"c1","boards":["desk"],"message":"ringing c1 on desk"}`.
  case outcome(RequestOutcome)
  /// The daemon's state: `{"ok":true,"status":{...}}`.
  case status(StatusReport)
  /// Recent calls, newest first: `{"ok":true,"calls":[...]}` when the history is whole; with a `problem`
  /// (records pending, lost, or unreadable) never ok: `{"ok":false,"error":"...","history":{...},"calls":[...]}`.
  case history(calls: [CallRecord], problem: HistoryProblem?)
  /// The request failed: `{"ok":false,"error":"...",...}`.
  case failure(ControlFailure)

  /// Whether the request did what it asked (`"ok":true`).
  public var isSuccess: Bool {
    switch self {
    case .ok, .outcome, .status: true
    case .history(_, let problem): problem == nil
    case .failure: false
    }
  }

  /// A failure with only a message: `{"ok":false,"error":"<message>"}`.
  public static func failure(_ message: String) -> ControlResponse { .failure(ControlFailure(message)) }

  /// A failure located in the input: `{"ok":false,"error":"<location: field: message>",...}`.
  public static func failure(_ error: InputError) -> ControlResponse { .failure(ControlFailure(error)) }
}

/// Why a request failed, as the `error` of a failure answer, with its place when it was bad input.
public struct ControlFailure: Error, Equatable, Sendable, CustomStringConvertible {
  /// The whole error for people: `socket:1:34: level: "urgent" is not one of ...`.
  public var error: String
  /// Where the bad input is (`socket:1:34`), for bad input only.
  public var location: String?
  /// The field that is wrong, when one is.
  public var field: String?
  /// What is wrong, without the place, for bad input only.
  public var message: String?

  /// A failure with only a message.
  public init(_ error: String) {
    self.error = error
  }

  /// A failure of bad input, with its parts.
  public init(_ error: InputError) {
    self.error = error.description
    location = error.location
    field = error.field.isEmpty ? nil : error.field
    message = error.message
  }

  /// All the parts, as they came over the wire.
  public init(error: String, location: String?, field: String?, message: String?) {
    self.error = error
    self.location = location
    self.field = field
    self.message = message
  }

  /// The error for people.
  public var description: String { error }
}

/// What keeps a `history` answer from being whole: why, and the history's health.
public struct HistoryProblem: Equatable, Sendable {
  /// The `error` of the answer: `history degraded (...): 3 write(s) pending in memory, 0 lost`.
  public var error: String
  /// The history's health when it was read.
  public var health: HistoryHealth

  /// Creates a problem.
  public init(error: String, health: HistoryHealth) {
    self.error = error
    self.health = health
  }
}
