/// How a source's connection is doing, for `callalert status` and the logs.
public struct BridgeHealth: Equatable, Sendable {
  /// The connection's state.
  public enum State: String, Equatable, Sendable {
    /// Connecting (or, for AMI, logging in) for the first time.
    case connecting
    /// Connected and listening (AMI: logged in).
    case connected
    /// The last attempt failed or the connection was lost; another comes after the backoff.
    case failing
  }

  /// The state.
  public var state: State
  /// Why it is failing: the error, or what the far end said.
  public var reason: String?
  /// How long until the next attempt, while failing.
  public var nextAttemptIn: Duration?
  /// Attempts that failed in a row.
  public var failures: Int

  /// Creates a health report.
  public init(state: State, reason: String? = nil, nextAttemptIn: Duration? = nil, failures: Int = 0) {
    self.state = state
    self.reason = reason
    self.nextAttemptIn = nextAttemptIn
    self.failures = failures
  }
}
