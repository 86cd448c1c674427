/// Retransmission rules shared by both ends of a link.
///
/// A frame not answered by its deadline is sent again with the same sequence; when its deadline passes after
/// `maxTries` tries it fails. Only the frame's own deadlines spend tries (PROTOCOL.md §5.3 rule 5): resends
/// behind an older frame or on a `sequence_gap` NAK do not. The deadline allows for the bytes ahead of it on a slow line:
/// `now + baseTimeoutMs + 2 * bytesAhead / bytesPerMs` (2: the frame goes out, its answer comes back).
public struct LinkTiming: Equatable, Sendable {
  /// The timeout for a small frame on an idle line.
  public var baseTimeoutMs: UInt64
  /// The line's speed in bytes per millisecond (115 200 baud 8N1 carries 11.52; 11 is conservative).
  public var bytesPerMs: UInt64
  /// Tries before a frame fails: the first transmission plus `maxTries - 1` retransmissions on its own deadline.
  public var maxTries: Int

  /// Creates timing rules.
  public init(baseTimeoutMs: UInt64 = 100, bytesPerMs: UInt64 = 11, maxTries: Int = 5) {
    self.baseTimeoutMs = baseTimeoutMs
    self.bytesPerMs = max(1, bytesPerMs)
    self.maxTries = max(1, maxTries)
  }

  /// The v1 defaults: 100 ms plus line time, 5 tries.
  public static let standard = LinkTiming()

  /// The v1 defaults for a UART at `baudRate` (8N1): `floor(baudRate / 10 000)` bytes per millisecond, at least
  /// 1, so that on a line slower than 115 200 baud a window of large frames is not timed out while it is still
  /// on the wire. 115 200 gives ``standard``.
  public init(baudRate: Int, baseTimeoutMs: UInt64 = 100, maxTries: Int = 5) {
    self.init(baseTimeoutMs: baseTimeoutMs, bytesPerMs: UInt64(max(1, baudRate / 10_000)), maxTries: maxTries)
  }

  /// The timeout for a frame with `bytesAhead` bytes (itself included) queued before its answer.
  public func timeout(bytesAhead: Int) -> UInt64 {
    baseTimeoutMs + 2 * UInt64(bytesAhead) / bytesPerMs
  }
}
