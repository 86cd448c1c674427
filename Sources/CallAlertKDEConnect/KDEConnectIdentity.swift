import CallAlertText

/// Who a device says it is: the body of a `kdeconnect.identity` packet, sent over UDP to announce a device,
/// as the first line of every TCP connection, and (protocol 8) once more inside TLS, where it counts.
public struct KDEConnectIdentity: Equatable, Sendable {
  /// The device's id: 32 to 38 of `[A-Za-z0-9_-]`; the common name of its certificate.
  public var deviceID: String
  /// The name its user gave it (cut to 32 characters, without `"',;:.!?()[]<>`, as KDE Connect shows it).
  public var deviceName: String
  /// `phone`, `desktop`, `laptop`, `tablet`, `tv` (older Android apps say `smartphone`).
  public var deviceType: String
  /// The protocol version: 7, or 8 (identity again inside TLS, timestamped pairing).
  public var protocolVersion: Int
  /// Packet types the device takes.
  public var incomingCapabilities: [String]
  /// Packet types the device sends.
  public var outgoingCapabilities: [String]
  /// The TCP port it listens on (UDP announcements only).
  public var tcpPort: Int?
  /// The device the sender means to reach (protocol 8, on TCP): a connection meant for another is refused.
  public var targetDeviceID: String?
  /// The protocol version the sender expects of the target.
  public var targetProtocolVersion: Int?

  /// The protocol versions CallAlert speaks.
  public static let supportedVersions = 7...8
  /// The version CallAlert announces.
  public static let currentVersion = 8

  /// Creates an identity.
  public init(
    deviceID: String, deviceName: String, deviceType: String, protocolVersion: Int = KDEConnectIdentity.currentVersion,
    incomingCapabilities: [String] = [], outgoingCapabilities: [String] = [], tcpPort: Int? = nil,
    targetDeviceID: String? = nil, targetProtocolVersion: Int? = nil
  ) {
    self.deviceID = deviceID
    self.deviceName = deviceName
    self.deviceType = deviceType
    self.protocolVersion = protocolVersion
    self.incomingCapabilities = incomingCapabilities
    self.outgoingCapabilities = outgoingCapabilities
    self.tcpPort = tcpPort
    self.targetDeviceID = targetDeviceID
    self.targetProtocolVersion = targetProtocolVersion
  }

  /// Reads an identity packet.
  ///
  /// - Throws: ``InputError`` at the packet's place: another packet type, a device id KDE Connect would refuse,
  ///   an empty name, a protocol version CallAlert does not speak (it names the versions it does).
  public init(packet: KDEConnectPacket) throws(InputError) {
    guard packet.type == KDEConnectPacket.identityType else {
      throw packet.error("type", "\"\(packet.type)\" came where an identity (kdeconnect.identity) was expected")
    }
    guard let id = packet["deviceId"]?.string else {
      throw packet.error("deviceId", "missing or not a string; an identity names its device")
    }
    guard Self.isValidDeviceID(id) else {
      throw packet.error(
        "deviceId", "\"\(DisplayText.excerpt(id, limit: 40))\" is not a device id (32 to 38 of A-Z, a-z, 0-9, _ and -)")
    }
    let name = Self.shownName(packet["deviceName"]?.string ?? "")
    guard !name.isEmpty else { throw packet.error("deviceName", "missing or empty; a device has a name to show") }
    guard let version = packet["protocolVersion"]?.integer else {
      throw packet.error("protocolVersion", "missing or not an integer")
    }
    guard Self.supportedVersions.contains(Int(version)) else {
      throw packet.error(
        "protocolVersion",
        "version \(version) is not spoken here (7 and 8 are); update KDE Connect on \(name)")
    }
    deviceID = id
    deviceName = name
    deviceType = packet["deviceType"]?.string ?? "unknown"
    protocolVersion = Int(version)
    incomingCapabilities = Self.strings(packet["incomingCapabilities"])
    outgoingCapabilities = Self.strings(packet["outgoingCapabilities"])
    if let port = packet["tcpPort"] {
      guard let number = port.integer, (1...65_535).contains(number) else {
        throw packet.error("tcpPort", "\(port.kindDescription) is not a TCP port (1 to 65535)")
      }
      tcpPort = Int(number)
    }
    targetDeviceID = packet["targetDeviceId"]?.string
    targetProtocolVersion = packet["targetProtocolVersion"]?.integer.map { Int($0) }
  }

  /// The identity as a packet, stamped `id` (milliseconds).
  public func packet(id: Int64) -> KDEConnectPacket {
    var body: [KDEConnectField] = [
      KDEConnectField("deviceId", .string(deviceID)), KDEConnectField("deviceName", .string(deviceName)),
      KDEConnectField("deviceType", .string(deviceType)),
      KDEConnectField("protocolVersion", .integer(Int64(protocolVersion))),
      KDEConnectField("incomingCapabilities", .strings(incomingCapabilities)),
      KDEConnectField("outgoingCapabilities", .strings(outgoingCapabilities)),
    ]
    if let tcpPort { body.append(KDEConnectField("tcpPort", .integer(Int64(tcpPort)))) }
    if let targetDeviceID { body.append(KDEConnectField("targetDeviceId", .string(targetDeviceID))) }
    if let targetProtocolVersion {
      body.append(KDEConnectField("targetProtocolVersion", .integer(Int64(targetProtocolVersion))))
    }
    return KDEConnectPacket(id: id, type: KDEConnectPacket.identityType, body: body)
  }

  /// Whether KDE Connect accepts `id` as a device id.
  public static func isValidDeviceID(_ id: String) -> Bool {
    (32...38).contains(id.utf8.count)
      && id.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
          || byte == 0x2D
      }
  }

  /// A name as KDE Connect shows it: without `"',;:.!?()[]<>`, at most 32 characters.
  public static func shownName(_ name: String) -> String {
    let refused = Set("\"',;:.!?()[]<>")
    return String(name.filter { !refused.contains($0) && !$0.isNewline }.prefix(32))
  }

  private static func strings(_ value: KDEConnectValue?) -> [String] {
    if case .strings(let texts) = value { return texts }
    return []
  }
}
