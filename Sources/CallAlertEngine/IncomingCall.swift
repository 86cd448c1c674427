#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How urgently a notification asks for attention, after Apple's `UNNotificationInterruptionLevel`
/// (`aps.interruption-level` in a push payload).
public enum InterruptionLevel: String, CaseIterable, Comparable, Codable, Sendable {
  /// Never rings; recorded only.
  case passive
  /// Rings unless do-not-disturb holds it back.
  case active
  /// Breaks through do-not-disturb when the configuration allows time-sensitive calls.
  case timeSensitive = "time-sensitive"
  /// Always rings, whatever do-not-disturb says.
  case critical

  private var rank: Int {
    switch self {
    case .passive: 0
    case .active: 1
    case .timeSensitive: 2
    case .critical: 3
    }
  }

  /// Orders by urgency: passive < active < time-sensitive < critical.
  public static func < (lhs: InterruptionLevel, rhs: InterruptionLevel) -> Bool { lhs.rank < rhs.rank }
}

/// An incoming call as the engine receives it, from a JSON line, a push payload or the control socket.
public struct IncomingCall: Equatable, Codable, Sendable {
  /// The call's identifier; one alert per id.
  public var id: String
  /// The caller's number as received (normalised to E.164 by the engine); nil when withheld.
  public var callerNumber: String?
  /// The caller's display name, if known.
  public var callerName: String?
  /// When the call was sent, if the notification says; the 30 s cap counts from here.
  public var sentAt: Date?
  /// How urgent the call is.
  public var level: InterruptionLevel
  /// A pattern name the sender suggests (used when no rule picks one).
  public var patternHint: String?
  /// The boards the call's source chose (a phone-system bridge's filter); nil: the pattern rules choose.
  public var boards: [String]?
  /// Where it came from, for the call budget; stamped by the daemon as it arrives (nil: not said, counted as
  /// ``CallSource/unattributed``).
  public var source: CallSource?

  /// Creates a call.
  public init(
    id: String, callerNumber: String? = nil, callerName: String? = nil, sentAt: Date? = nil,
    level: InterruptionLevel = .active, patternHint: String? = nil, boards: [String]? = nil,
    source: CallSource? = nil
  ) {
    self.id = id
    self.callerNumber = callerNumber
    self.callerName = callerName
    self.sentAt = sentAt
    self.level = level
    self.patternHint = patternHint
    self.boards = boards
    self.source = source
  }

  /// The source whose share of the budget it takes.
  public var budgetSource: CallSource { source ?? .unattributed }

  /// This call, from `source`.
  public func from(_ source: CallSource) -> IncomingCall {
    var call = self
    call.source = source
    return call
  }
}

/// A moment as the engine sees it: a monotonic clock for caps and timeouts (immune to wall-clock jumps),
/// and the wall clock for quiet hours and for sent-at lateness.
public struct EngineTime: Equatable, Comparable, Sendable {
  /// Milliseconds on a monotonic clock (any origin).
  public var monotonicMs: UInt64
  /// The wall-clock time at the same moment.
  public var wall: Date

  /// Creates a moment.
  public init(monotonicMs: UInt64, wall: Date) {
    self.monotonicMs = monotonicMs
    self.wall = wall
  }

  /// This moment plus `ms` milliseconds on both clocks.
  public func adding(ms: UInt64) -> EngineTime {
    EngineTime(monotonicMs: monotonicMs + ms, wall: wall.addingTimeInterval(Double(ms) / 1_000))
  }

  /// Orders by the monotonic clock.
  public static func < (lhs: EngineTime, rhs: EngineTime) -> Bool { lhs.monotonicMs < rhs.monotonicMs }
}
