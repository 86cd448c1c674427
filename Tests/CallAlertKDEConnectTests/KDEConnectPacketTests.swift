import CallAlertKDEConnect
import CallAlertText
import Testing

/// Packets and identities as the Android app and KDE Connect on the desktop send them, and what is refused,
/// with its place.
@Suite struct KDEConnectPacketTests {
  static func packet(_ text: String) throws(InputError) -> KDEConnectPacket {
    try KDEConnectPacket.parse(Array(text.utf8), source: "kdeconnect:Pixel 7", lineNumber: 3)
  }

  static func problem(_ text: String) -> String {
    do {
      let packet = try packet(text)
      if packet.type == KDEConnectPacket.identityType { _ = try KDEConnectIdentity(packet: packet) }
      if packet.type == KDEConnectPacket.telephonyType { _ = try KDEConnectTelephonyEvent.read(packet) }
      return "no error"
    } catch {
      return error.description
    }
  }

  /// An Android identity of protocol 8 (shortened capabilities), as the app writes it.
  static let androidIdentity =
    #"{"id":1764230400123,"type":"kdeconnect.identity","body":{"deviceId":"a1b2c3d4e5f60718293a4b5c6d7e8f90","deviceName":"Pixel 7","protocolVersion":8,"deviceType":"phone","incomingCapabilities":["kdeconnect.telephony.request_mute","kdeconnect.ping"],"outgoingCapabilities":["kdeconnect.telephony"],"tcpPort":1716}}"#

  @Test func anIdentityOfProtocol8IsRead() throws {
    let identity = try KDEConnectIdentity(packet: try Self.packet(Self.androidIdentity))
    #expect(identity.deviceID == "a1b2c3d4e5f60718293a4b5c6d7e8f90")
    #expect(identity.deviceName == "Pixel 7" && identity.deviceType == "phone" && identity.protocolVersion == 8)
    #expect(identity.outgoingCapabilities == ["kdeconnect.telephony"] && identity.tcpPort == 1716)
  }

  @Test func anIdentityOfProtocol7WithAnOldStyleIdIsRead() throws {
    let text =
      #"{"id":"1450000000000","type":"kdeconnect.identity","body":{"deviceId":"_7d9b4c2a_1e3f_4a5b_9c8d_7e6f5a4b3c2d_","deviceName":"Old Phone","protocolVersion":7,"deviceType":"smartphone"}}"#
    let packet = try Self.packet(text)
    #expect(packet.id == 1_450_000_000_000)
    let identity = try KDEConnectIdentity(packet: packet)
    #expect(identity.protocolVersion == 7 && identity.deviceType == "smartphone" && identity.tcpPort == nil)
  }

  @Test func anIdentityRoundTrips() throws {
    let identity = KDEConnectIdentity(
      deviceID: "0123456789abcdef0123456789abcdef", deviceName: "Bedroom", deviceType: "desktop",
      incomingCapabilities: ["kdeconnect.telephony"], outgoingCapabilities: ["kdeconnect.telephony.request_mute"],
      tcpPort: 1_717, targetDeviceID: "a1b2c3d4e5f60718293a4b5c6d7e8f90", targetProtocolVersion: 8)
    let line = identity.packet(id: 42).line
    #expect(line.last == 0x0A)
    let text = String(decoding: line.dropLast(), as: UTF8.self)
    #expect(
      text.hasPrefix(#"{"id":42,"type":"kdeconnect.identity","body":{"deviceId":"0123456789abcdef0123456789abcdef""#))
    #expect(try KDEConnectIdentity(packet: try Self.packet(text)) == identity)
  }

  @Test func namesAreShownAsKDEConnectShowsThem() {
    #expect(KDEConnectIdentity.shownName("Alice's phone (work)") == "Alices phone work")
    #expect(KDEConnectIdentity.shownName(String(repeating: "x", count: 40)).count == 32)
  }

  @Test(arguments: [
    ("not json", "kdeconnect:Pixel 7:3:1: JSON syntax error"),
    ("[1,2]", "kdeconnect:Pixel 7:3:1: a packet is a JSON object"),
    (#"{"id":1,"body":{}}"#, "kdeconnect:Pixel 7:3:1: type: missing"),
    (#"{"id":1,"type":"kdeconnect.ping","body":[]}"#, "kdeconnect:Pixel 7:3:41: body: must be an object, not an array"),
    (#"{"id":"soon","type":"kdeconnect.ping"}"#, #"kdeconnect:Pixel 7:3:7: id: "soon" is not a timestamp"#),
    (
      #"{"id":1,"type":"kdeconnect.identity","body":{"deviceId":"short","deviceName":"P","protocolVersion":8}}"#,
      #"kdeconnect:Pixel 7:3:57: deviceId: "short" is not a device id"#
    ),
    (
      #"{"id":1,"type":"kdeconnect.identity","body":{"deviceId":"a1b2c3d4e5f60718293a4b5c6d7e8f90","deviceName":"P","protocolVersion":6}}"#,
      "protocolVersion: version 6 is not spoken here (7 and 8 are); update KDE Connect on P"
    ),
    (
      #"{"id":1,"type":"kdeconnect.telephony","body":{"event":"ringing","isCancel":"maybe"}}"#,
      #"kdeconnect:Pixel 7:3:76: isCancel: a string is not true or false"#
    ),
    (
      #"{"id":1,"type":"kdeconnect.telephony","body":{"event":"ringing","phoneNumber":4930}}"#,
      "phoneNumber: an integer is not text"
    ),
    (#"{"id":1,"type":"kdeconnect.telephony","body":{}}"#, "event: missing; say ringing, talking or missedCall"),
  ])
  func badPacketsAreRefusedWithTheirPlace(text: String, expected: String) {
    let problem = Self.problem(text)
    #expect(problem.contains(expected), "\(problem)")
  }

  @Test func telephonyPacketsReadBothKindsOfCancel() throws {
    let android = try Self.packet(
      #"{"id":1,"type":"kdeconnect.telephony","body":{"event":"ringing","phoneNumber":"+4930123","contactName":"Alice","isCancel":"true"}}"#
    )
    #expect(
      try KDEConnectTelephonyEvent.read(android)
        == KDEConnectTelephonyEvent(kind: .ringing, isCancel: true, phoneNumber: "+4930123", contactName: "Alice"))
    let boolean = try Self.packet(#"{"id":1,"type":"kdeconnect.telephony","body":{"event":"talking","isCancel":true}}"#)
    #expect(try KDEConnectTelephonyEvent.read(boolean) == KDEConnectTelephonyEvent(kind: .talking, isCancel: true))
    let sms = try Self.packet(#"{"id":1,"type":"kdeconnect.telephony","body":{"event":"sms","messageBody":"hi"}}"#)
    #expect(try KDEConnectTelephonyEvent.read(sms) == nil)
  }
}
