/// How long to wait before the next connection attempt: fast at first (a box restarting or a brief network
/// hiccup), doubling up to a minute (a box that is off for the night costs one attempt a minute).
public struct ReconnectBackoff: Equatable, Sendable {
  /// The first wait.
  public static let first: Duration = .milliseconds(500)
  /// The longest wait.
  public static let maximum: Duration = .seconds(60)
  private var next = ReconnectBackoff.first

  /// Creates a backoff at its first wait.
  public init() {}

  /// The wait before the next attempt; each call doubles the following one, up to ``maximum``.
  public mutating func nextDelay() -> Duration {
    defer { next = min(next * 2, Self.maximum) }
    return next
  }

  /// Back to the first wait, once a connection worked.
  public mutating func reset() { next = Self.first }
}
