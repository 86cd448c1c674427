import CallAlertProtocol

/// The host's lease on a playing alert: if the host stops renewing it (it crashed, the cable was pulled),
/// the board stops ringing by itself.
///
/// LEASE sets the length (100-10 000 ms) and renews; PLAY renews. It only matters while something plays:
/// a lapsed lease with nothing playing does nothing, and the indicator is never affected (a status light
/// that goes dark with the keep-alive is what users of such lights hated).
public struct Lease: Equatable, Sendable {
  /// The lease's length.
  public private(set) var lengthMs: UInt16
  /// The last renewal.
  public private(set) var renewedAtMs: UInt64

  /// Creates a lease of `lengthMs`, renewed at `nowMs`.
  public init(lengthMs: UInt16, nowMs: UInt64) {
    self.lengthMs = lengthMs
    renewedAtMs = nowMs
  }

  /// Renews at `nowMs`.
  public mutating func renew(nowMs: UInt64) { renewedAtMs = max(renewedAtMs, nowMs) }

  /// Sets the length (clamped to the protocol's range) and renews.
  public mutating func set(lengthMs: UInt16, nowMs: UInt64) {
    self.lengthMs = max(Command.minLeaseMs, min(lengthMs, Command.maxLeaseMs))
    renew(nowMs: nowMs)
  }

  /// When the lease lapses unless renewed.
  public var deadlineMs: UInt64 { renewedAtMs + UInt64(lengthMs) }

  /// Whether the lease has lapsed at `nowMs` (at the deadline itself, it has).
  public func hasLapsed(atMs nowMs: UInt64) -> Bool { nowMs >= deadlineMs }

  /// The time left at `nowMs`, 0 once lapsed.
  public func remainingMs(atMs nowMs: UInt64) -> UInt64 { nowMs >= deadlineMs ? 0 : deadlineMs - nowMs }
}
