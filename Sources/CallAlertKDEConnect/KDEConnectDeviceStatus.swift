/// A phone as `callalert status` shows it: paired or asking to, reachable or not.
public struct KDEConnectDeviceStatus: Equatable, Sendable {
  /// Where the phone stands.
  public enum State: String, Equatable, Sendable {
    /// Paired, and its link is up: its calls ring.
    case connected
    /// Paired, not on the network now (it resumes when it comes back).
    case unreachable
    /// It asked to pair; waiting for `callalert kdeconnect pair`.
    case pairingRequested = "pairing-requested"
    /// Linked, not paired: its calls are refused.
    case unpaired
    /// Its last link was refused (a changed certificate, a bad identity).
    case refused
  }

  /// The device id.
  public var id: String
  /// The name it shows.
  public var name: String
  /// Where it was last seen (`address:port`), or empty.
  public var address: String
  /// Where it stands.
  public var state: State
  /// What to do, or why it was refused.
  public var reason: String?

  /// Creates a status.
  public init(id: String, name: String, address: String, state: State, reason: String? = nil) {
    self.id = id
    self.name = name
    self.address = address
    self.state = state
    self.reason = reason
  }
}
