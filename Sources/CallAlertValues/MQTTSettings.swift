#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The config's `mqtt:` section: the broker this host shares calls and state through (docs/MQTT.md).
public struct MQTTSettings: Equatable, Sendable {
  /// The broker's host name or address.
  public var host: String
  /// The broker's port (1883 for `mqtt://`, 8883 for `mqtts://` unless the URL says).
  public var port: Int
  /// Whether the connection is TLS (`mqtts://`), checked against ``caFile`` (or the system's CAs).
  public var tls: Bool
  /// The broker URL as written, for status and logs.
  public var url: String
  /// The MQTT client id; unique per host (the broker keeps this host's session under it).
  public var clientID: String
  /// The user name, if the broker asks for one.
  public var username: String?
  /// A file holding the password on its first line (mode 0600 or 0400).
  public var passwordFile: String?
  /// The CA certificate file (PEM) that signs the broker's certificate, for `mqtts://`.
  public var caFile: String?
  /// The first topic level of everything CallAlert publishes and reads (default `callalert`).
  public var baseTopic: String
  /// This host's name in topics (default: the host name, lower-cased, `[a-z0-9_-]` only).
  public var nodeID: String
  /// Whether do-not-disturb switched on one host applies to every host on the base topic.
  public var shareDoNotDisturb: Bool
  /// Home Assistant's discovery prefix; nil: no discovery.
  public var discoveryPrefix: String?
  /// The MQTT keepalive: the broker declares the host gone (its Last Will) after 1.5 times this.
  public var keepaliveSeconds: Int

  /// The default base topic.
  public static let defaultBaseTopic = "callalert"
  /// Home Assistant's default discovery prefix.
  public static let defaultDiscoveryPrefix = "homeassistant"
  /// The default keepalive.
  public static let defaultKeepaliveSeconds = 30

  /// Creates settings; the client id defaults to `callalert-<node id>`.
  public init(
    host: String, port: Int = 1883, tls: Bool = false, url: String? = nil, clientID: String? = nil,
    username: String? = nil, passwordFile: String? = nil, caFile: String? = nil,
    baseTopic: String = MQTTSettings.defaultBaseTopic, nodeID: String = MQTTSettings.defaultNodeID(),
    shareDoNotDisturb: Bool = true, discoveryPrefix: String? = MQTTSettings.defaultDiscoveryPrefix,
    keepaliveSeconds: Int = MQTTSettings.defaultKeepaliveSeconds
  ) {
    self.host = host
    self.port = port
    self.tls = tls
    self.url = url ?? "\(tls ? "mqtts" : "mqtt")://\(host):\(port)"
    self.clientID = clientID ?? "callalert-\(nodeID)"
    self.username = username
    self.passwordFile = passwordFile
    self.caFile = caFile
    self.baseTopic = baseTopic
    self.nodeID = nodeID
    self.shareDoNotDisturb = shareDoNotDisturb
    self.discoveryPrefix = discoveryPrefix
    self.keepaliveSeconds = keepaliveSeconds
  }

  /// This machine's host name as a node id: lower-cased, anything but `a-z`, `0-9`, `-`, `_` as `_`.
  public static func defaultNodeID() -> String {
    let name = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
    let id = String(name.lowercased().map { MQTTSettings.isNodeCharacter($0) ? $0 : "_" })
    return id.isEmpty ? "host" : String(id.prefix(64))
  }

  /// Whether a character may appear in a node id (and a topic level CallAlert makes up).
  public static func isNodeCharacter(_ character: Character) -> Bool {
    guard let ascii = character.asciiValue else { return false }
    return (ascii >= 0x61 && ascii <= 0x7A) || (ascii >= 0x30 && ascii <= 0x39) || ascii == 0x2D || ascii == 0x5F
  }
}
