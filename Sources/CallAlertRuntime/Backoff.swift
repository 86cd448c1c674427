/// Growing pauses between tries: the first `initial`, each next one twice the last, never above `maximum`.
/// The one retry rule of the host: reopening a board that went away, the daemon's first connection to a
/// board, and the handshakes sent to a board that stopped answering all take their pauses from it.
public struct Backoff: Sendable, Equatable {
  /// The first pause.
  public var initial: Duration
  /// The longest pause.
  public var maximum: Duration
  /// The pause ``next()`` returns.
  public private(set) var current: Duration

  /// Creates a backoff whose first pause is `initial`.
  public init(initial: Duration, maximum: Duration) {
    self.initial = initial
    self.maximum = max(initial, maximum)
    current = initial
  }

  /// The pause before the next try; the one after it is twice as long, up to ``maximum``.
  public mutating func next() -> Duration {
    defer { current = min(current * 2, maximum) }
    return current
  }

  /// Starts over from ``initial`` (after a success).
  public mutating func reset() { current = initial }
}
