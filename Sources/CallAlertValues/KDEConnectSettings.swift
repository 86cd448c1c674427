/// The config's `kdeconnect:` section: CallAlert as a KDE Connect device on the LAN, so that phones paired with
/// it ring the boards when they ring (docs/PHONE.md).
public struct KDEConnectSettings: Equatable, Sendable {
  /// The name phones show for this host (default: the host name).
  public var name: String
  /// Where this host's certificate and the paired phones are kept (default: `kdeconnect` beside the history).
  public var stateDirectory: String
  /// The address the sockets are bound to (default every address, `0.0.0.0`).
  public var listen: String
  /// The UDP port announcements are heard on and sent to (KDE Connect's 1716).
  public var discoveryPort: Int
  /// The TCP ports tried for the listener, first free one taken (KDE Connect's 1716-1764).
  public var tcpPorts: ClosedRange<Int>
  /// Whether this host announces itself to the LAN's broadcast address.
  public var broadcast: Bool
  /// Addresses announced to directly (`host` or `host:port`): phones on another subnet, or behind a router that
  /// drops broadcasts.
  public var peers: [String]
  /// How often this host announces itself, so a phone back on the network finds it.
  public var announceEverySeconds: Int
  /// Whether acknowledging a call on a board or the command line asks the phone to mute its ringer.
  public var muteOnAcknowledge: Bool

  /// KDE Connect's UDP port.
  public static let defaultDiscoveryPort = 1_716
  /// KDE Connect's TCP ports.
  public static let defaultTCPPorts = 1_716...1_764
  /// The default announcement interval.
  public static let defaultAnnounceEverySeconds = 60

  /// Creates settings.
  public init(
    name: String, stateDirectory: String, listen: String = "0.0.0.0",
    discoveryPort: Int = KDEConnectSettings.defaultDiscoveryPort,
    tcpPorts: ClosedRange<Int> = KDEConnectSettings.defaultTCPPorts, broadcast: Bool = true, peers: [String] = [],
    announceEverySeconds: Int = KDEConnectSettings.defaultAnnounceEverySeconds, muteOnAcknowledge: Bool = true
  ) {
    self.name = name
    self.stateDirectory = stateDirectory
    self.listen = listen
    self.discoveryPort = discoveryPort
    self.tcpPorts = tcpPorts
    self.broadcast = broadcast
    self.peers = peers
    self.announceEverySeconds = announceEverySeconds
    self.muteOnAcknowledge = muteOnAcknowledge
  }
}
