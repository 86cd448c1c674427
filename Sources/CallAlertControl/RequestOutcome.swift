import CallAlertEngine
import CallAlertText

/// What a `call`, `hangup`, `answered`, `ack` or `push` request did, for the control answer and
/// `callalert notify`: `ringing c1 on desk`, `unknown call id c9`, `ignored: ...`.
public struct RequestOutcome: Equatable, Sendable {
  /// What happened, as a word for programs.
  public enum Result: String, Equatable, Sendable {
    /// The call rings on `boards`.
    case ringing
    /// The call is active but no board of its is connected yet; it rings on one that connects within its cap.
    case waiting
    /// A call with this id is already known (ringing, or ended a short while ago): nothing changed.
    case duplicate
    /// The call was held back (do-not-disturb, passive, hung up before it arrived) and recorded as missed.
    case suppressed
    /// The call arrived after its cap had passed and was recorded as missed.
    case missed
    /// The call stopped ringing.
    case stopped
    /// No call has this id; a hangup is remembered in case its call arrives late.
    case unknownCall = "unknown-call"
    /// The call had already ended.
    case ended
    /// Missed calls were acknowledged (one when the request named it).
    case acknowledged
    /// The request named a missed call that does not wait for an acknowledgement.
    case notMissed = "not-missed"
    /// The call was refused: too many calls are active (a control error, not an answer).
    case refused
    /// The push was not about calls.
    case ignored
    /// Done; nothing more to say.
    case ok
  }

  /// What happened.
  public var result: Result
  /// The call's id, when the request was about one call.
  public var callID: String?
  /// The boards it rings on (ringing).
  public var boards: [String]
  /// Why (suppressed, missed, ignored).
  public var reason: String?

  /// Creates an outcome.
  public init(_ result: Result, callID: String? = nil, boards: [String] = [], reason: String? = nil) {
    self.result = result
    self.callID = callID
    self.boards = boards
    self.reason = reason
  }

  /// A push that was not about calls.
  public static func ignored(_ reason: String) -> RequestOutcome { RequestOutcome(.ignored, reason: reason) }

  /// What `input` did, read from the events the engine gave for it.
  public static func of(_ input: EngineInput, events: [EngineEvent]) -> RequestOutcome {
    switch input {
    case .call(let call):
      for event in events {
        switch event {
        case .ringing(let ringing, let boards, _, _, _) where ringing.id == call.id:
          return RequestOutcome(boards.isEmpty ? .waiting : .ringing, callID: call.id, boards: boards)
        case .ignored(let id, let reason) where id == call.id && reason == .duplicateCall:
          return RequestOutcome(.duplicate, callID: call.id)
        case .ignored(let id, let reason) where id == call.id && reason == .tooManyCalls:
          return RequestOutcome(.refused, callID: call.id, reason: reason.rawValue)
        case .suppressed(let suppressed, let reason) where suppressed.id == call.id:
          return RequestOutcome(.suppressed, callID: call.id, reason: reason.rawValue)
        case .missed(let missed, let reason) where missed.id == call.id:
          return RequestOutcome(.missed, callID: call.id, reason: reason.rawValue)
        default: continue
        }
      }
      return RequestOutcome(.ok, callID: call.id)
    case .hangup(let id), .answered(let id?), .unanswered(let id):
      for event in events {
        switch event {
        case .stopped(let stopped, _) where stopped == id: return RequestOutcome(.stopped, callID: id)
        case .ignored(let ignored, .unknownCall) where ignored == id: return RequestOutcome(.unknownCall, callID: id)
        default: continue
        }
      }
      return RequestOutcome(.ended, callID: id)
    case .acknowledgeMissed(let id):
      let done = events.contains { if case .missedCallAcknowledged(id) = $0 { true } else { false } }
      return RequestOutcome(done ? .acknowledged : .notMissed, callID: id)
    case .answered(nil), .acknowledge:
      if events.contains(where: { if case .missedAcknowledged = $0 { true } else { false } }) {
        return RequestOutcome(.acknowledged)
      }
      let stopped = events.compactMap { if case .stopped(let id, _) = $0 { id } else { nil } }
      return stopped.isEmpty ? RequestOutcome(.ok) : RequestOutcome(.stopped, boards: [], reason: nil)
    default:
      return RequestOutcome(.ok)
    }
  }

  /// One line for people: `ringing c1 on desk, bed`, `unknown call id c9`, `ignored: ...`. Ids, boards and
  /// reasons are shown safely (``DisplayText``).
  public var text: String {
    let id = callID.map { DisplayText.excerpt($0) } ?? ""
    let boardList = boards.map { DisplayText.safe($0) }.joined(separator: ", ")
    let why = reason.map { DisplayText.safe($0) } ?? ""
    switch result {
    case .ringing: return "ringing \(id) on \(boardList)"
    case .waiting: return "ringing \(id), waiting for a board to connect"
    case .duplicate: return "already known: \(id) (not restarted)"
    case .suppressed: return "not ringing \(id): \(why); recorded as missed"
    case .missed: return "not ringing \(id): \(why); recorded as missed"
    case .stopped: return id.isEmpty ? "stopped" : "stopped \(id)"
    case .unknownCall: return "unknown call id \(id)"
    case .ended: return "\(id) had already ended"
    case .acknowledged: return id.isEmpty ? "missed calls acknowledged" : "missed call \(id) acknowledged"
    case .notMissed: return "no missed call \(id) waits for an acknowledgement"
    case .refused:
      return "refused call \(id): its source has \(AlertEngine.maximumActiveCallsPerSource) calls active already, "
        + "or \(AlertEngine.maximumActiveCalls) are active in all, the most there may be; hang some up first"
    case .ignored: return "ignored: \(why)"
    case .ok: return "ok"
    }
  }
}
