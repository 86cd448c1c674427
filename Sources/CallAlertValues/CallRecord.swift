import CallAlertEngine

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// One call as the history keeps it; encodes to JSON with snake_case keys (`received_at`, `ended_at`, ...)
/// for `{"type":"history"}` replies.
public struct CallRecord: Codable, Equatable, Sendable {
  /// The call's identifier.
  public var id: String
  /// The caller's number as received; nil when withheld.
  public var callerNumber: String?
  /// The caller's display name.
  public var callerName: String?
  /// How urgent the call was.
  public var level: InterruptionLevel
  /// The pattern name the sender suggested.
  public var patternHint: String?
  /// When the history first heard of the call (its first event).
  public var receivedAt: Date
  /// When the call was sent, if the notification said.
  public var sentAt: Date?
  /// When it started ringing; nil when it never rang.
  public var rangAt: Date?
  /// When it stopped ringing, or was held back or found missed.
  public var endedAt: Date?
  /// How it ended.
  public var outcome: CallOutcome
  /// The engine's reason: a stop reason (`hangup`, `cap`, ...), a suppression reason (`do-not-disturb`, ...)
  /// or a missed reason (`cap`, `suppressed`, `too-late`); `interrupted` when the daemon stopped mid-ring.
  public var reason: String?
  /// The boards it rang on.
  public var boards: [String]
  /// The pattern it rang with: a name, `slot N`, or `inline`.
  public var pattern: String?
  /// Whether it counts as missed (rang to its cap, or was held back).
  public var missed: Bool
  /// Whether a missed call was acknowledged (the indicator went off).
  public var acknowledged: Bool
  /// When a missed call was acknowledged.
  public var acknowledgedAt: Date?

  /// Creates a record.
  public init(
    id: String, callerNumber: String? = nil, callerName: String? = nil, level: InterruptionLevel = .active,
    patternHint: String? = nil, receivedAt: Date, sentAt: Date? = nil, rangAt: Date? = nil, endedAt: Date? = nil,
    outcome: CallOutcome, reason: String? = nil, boards: [String] = [], pattern: String? = nil, missed: Bool = false,
    acknowledged: Bool = false, acknowledgedAt: Date? = nil
  ) {
    self.id = id
    self.callerNumber = callerNumber
    self.callerName = callerName
    self.level = level
    self.patternHint = patternHint
    self.receivedAt = receivedAt
    self.sentAt = sentAt
    self.rangAt = rangAt
    self.endedAt = endedAt
    self.outcome = outcome
    self.reason = reason
    self.boards = boards
    self.pattern = pattern
    self.missed = missed
    self.acknowledged = acknowledged
    self.acknowledgedAt = acknowledgedAt
  }

  /// The call as the engine knew it, e.g. to restore missed calls at start.
  public var call: IncomingCall {
    IncomingCall(
      id: id, callerNumber: callerNumber, callerName: callerName, sentAt: sentAt, level: level,
      patternHint: patternHint)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case callerNumber = "caller"
    case callerName = "name"
    case level
    case patternHint = "pattern_hint"
    case receivedAt = "received_at"
    case sentAt = "sent_at"
    case rangAt = "rang_at"
    case endedAt = "ended_at"
    case outcome
    case reason
    case boards
    case pattern
    case missed
    case acknowledged
    case acknowledgedAt = "acknowledged_at"
  }
}
