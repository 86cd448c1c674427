import CallAlertProtocol

/// Detects a tick that fell behind the clock and rations the FAULT `tick_overrun` that reports it
/// (PROTOCOL.md §13.8).
///
/// The core tells its owner when to tick next (``BoardCore/nextWakeMs``). A tick that comes more than
/// ``thresholdMs`` after that time is an overrun: the core catches up at once (step boundaries stay
/// anchored), and the milliseconds it was late are lost to whatever was due then. 50 ms sits well above the
/// jitter of a 1 kHz firmware loop and of a desktop scheduler, and below the shortest lease (100 ms) and the
/// host's base timeout (100 ms), so every delay that could break a promise of the board is reported.
///
/// At most one FAULT per ``reportIntervalMs``: overruns in between add up and are reported together at the
/// end of the interval, so a board that stays overloaded cannot flood its event queue.
public struct TickOverrun: Equatable, Sendable {
  /// How late a tick may be before it counts as an overrun.
  public static let thresholdMs: UInt64 = 50
  /// The shortest time between two FAULT `tick_overrun`.
  public static let reportIntervalMs: UInt64 = 1_000

  /// Milliseconds lost and not yet reported.
  public private(set) var unreportedMs: UInt64 = 0
  /// When the last FAULT was raised.
  public private(set) var lastReportMs: UInt64?
  /// Overruns since boot.
  public private(set) var count: UInt32 = 0

  /// Creates a detector with nothing lost.
  public init() {}

  /// Records a tick at `nowMs` that the core had scheduled for `scheduledMs`.
  public mutating func tick(scheduledMs: UInt64?, nowMs: UInt64) {
    guard let scheduledMs, nowMs > scheduledMs + Self.thresholdMs else { return }
    unreportedMs += nowMs - scheduledMs
    count &+= 1
  }

  /// The FAULT to raise at `nowMs`, if milliseconds were lost and the last report is old enough.
  public mutating func report(nowMs: UInt64) -> FaultEvent? {
    guard unreportedMs > 0, nextReportMs.map({ nowMs >= $0 }) ?? true else { return nil }
    defer {
      unreportedMs = 0
      lastReportMs = nowMs
    }
    return FaultEvent(.tickOverrun, detail: UInt32(clamping: unreportedMs))
  }

  /// When a withheld report is due; nil when nothing waits.
  public var nextWakeMs: UInt64? {
    guard unreportedMs > 0 else { return nil }
    return nextReportMs
  }

  private var nextReportMs: UInt64? { lastReportMs.map { $0 + Self.reportIntervalMs } }
}
