/// A paired phone as the trust store keeps it: its id, the name it showed, the certificate pinned when it
/// paired, and the protocol version it spoke then (a phone that later offers an older one is refused).
public struct KDEConnectTrustedDevice: Codable, Equatable, Sendable {
  /// The device id.
  public var id: String
  /// The name it showed when it paired (or last connected).
  public var name: String
  /// Its certificate, DER, as base64.
  public var certificate: String
  /// The protocol version it spoke.
  public var protocolVersion: Int

  /// Creates an entry.
  public init(id: String, name: String, certificate: String, protocolVersion: Int) {
    self.id = id
    self.name = name
    self.certificate = certificate
    self.protocolVersion = protocolVersion
  }

  enum CodingKeys: String, CodingKey {
    case id, name, certificate, protocolVersion = "protocol_version"
  }
}
