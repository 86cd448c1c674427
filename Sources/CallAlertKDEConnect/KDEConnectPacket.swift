import CallAlertText

/// One KDE Connect packet: a JSON object on one line, `{"id":1764230400000,"type":"kdeconnect.ping","body":{}}`,
/// ended by `\n`. `id` is the sender's clock in milliseconds (nobody checks it), `type` names the plugin, and
/// `body` carries the plugin's fields. Packets with a payload (`payloadSize`, `payloadTransferInfo`: files,
/// contact photos sent separately) are read for their body; the payload itself is never fetched.
public struct KDEConnectPacket: Equatable, Sendable {
  /// The sender's timestamp in milliseconds.
  public var id: Int64
  /// The packet type: `kdeconnect.identity`, `kdeconnect.pair`, `kdeconnect.telephony`...
  public var type: String
  /// The body's fields in the order written.
  public var body: [KDEConnectField]
  /// Where the packet was read (`kdeconnect:Pixel 7:4`, source and line), for errors about its fields; empty
  /// for a packet made here.
  public var place: String
  /// The line's bytes' offset of the body, so errors can point into it.
  var lineBytes: [UInt8]

  /// The identity packet's type.
  public static let identityType = "kdeconnect.identity"
  /// The pairing packet's type.
  public static let pairType = "kdeconnect.pair"
  /// The telephony plugin's packet (a call's state on the phone).
  public static let telephonyType = "kdeconnect.telephony"
  /// Asks the phone to mute its ringer.
  public static let muteRequestType = "kdeconnect.telephony.request_mute"

  /// The longest line read: an identity is about 2 KiB, a telephony packet with a contact's photo tens of KiB.
  public static let maximumLineBytes = 512 * 1_024

  /// Creates a packet to send.
  public init(id: Int64, type: String, body: [KDEConnectField] = []) {
    self.id = id
    self.type = type
    self.body = body
    place = ""
    lineBytes = []
  }

  /// Equal when id, type and body are: where a packet was read is not part of what it says.
  public static func == (lhs: KDEConnectPacket, rhs: KDEConnectPacket) -> Bool {
    lhs.id == rhs.id && lhs.type == rhs.type && lhs.body == rhs.body
  }

  /// The body's field `key` (the last one when repeated), or nil.
  public subscript(key: String) -> KDEConnectValue? {
    body.last { $0.key == key }?.value
  }

  /// Reads one line (without its `\n`).
  ///
  /// - Parameters:
  ///   - line: The line's bytes as they came.
  ///   - source: Names the link in errors: `kdeconnect:Pixel 7`, `kdeconnect:udp 192.168.1.20`.
  ///   - lineNumber: The line's number on that link, from 1.
  /// - Throws: ``InputError`` at `source:line:column`, naming the field.
  public static func parse(_ line: [UInt8], source: String, lineNumber: Int) throws(InputError) -> KDEConnectPacket {
    let place = "\(source):\(lineNumber)"
    func error(_ offset: Int, _ field: String, _ message: String) -> InputError {
      InputError(location: "\(place):\(TextPosition.of(offset, in: line).column)", field: field, message: message)
    }
    guard line.count <= maximumLineBytes else {
      throw error(0, "", "a packet of \(line.count) bytes is longer than \(maximumLineBytes); skipped")
    }
    let root: JSONValue
    do {
      root = try JSONParser.parse(line)
    } catch {
      throw InputError(
        location: "\(place):\(TextPosition.of(error.offset, in: line).column)",
        message: "JSON syntax error: \(error.message)")
    }
    guard root.members != nil else {
      throw error(
        root.start, "", "a packet is a JSON object {\"id\":…,\"type\":…,\"body\":{…}}, not \(root.kindDescription)")
    }
    guard let typeValue = root["type"] else { throw error(root.start, "type", "missing; every packet names its type") }
    guard let type = typeValue.string, !type.isEmpty else {
      throw error(typeValue.start, "type", "\(typeValue.quoted) is not a packet type such as \"kdeconnect.ping\"")
    }
    var id: Int64 = 0
    if let idValue = root["id"] {
      // Senders write their clock as a number; some older ones wrote it as a string.
      guard let number = idValue.integer.map(Int64.init) ?? idValue.string.flatMap({ Int64($0) }) else {
        throw error(idValue.start, "id", "\(idValue.quoted) is not a timestamp in milliseconds")
      }
      id = number
    }
    var body: [KDEConnectField] = []
    if let bodyValue = root["body"] {
      guard let members = bodyValue.members else {
        throw error(bodyValue.start, "body", "must be an object, not \(bodyValue.kindDescription)")
      }
      body = members.map { KDEConnectField($0.key, value(of: $0.value), offset: $0.value.start) }
    }
    var packet = KDEConnectPacket(id: id, type: type, body: body)
    packet.place = place
    packet.lineBytes = line
    return packet
  }

  /// An error about the body's field `key` (or the body as a whole), located in the line the packet came from.
  public func error(_ key: String, _ message: String) -> InputError {
    let offset = body.last { $0.key == key }?.offset ?? 0
    let column = lineBytes.isEmpty ? 1 : TextPosition.of(offset, in: lineBytes).column
    return InputError(location: place.isEmpty ? "kdeconnect" : "\(place):\(column)", field: key, message: message)
  }

  /// The packet as it goes on the wire: compact JSON and its `\n`.
  public var line: [UInt8] {
    let members = body.compactMap { field -> (String, String)? in
      Self.json(field.value).map { (field.key, $0) }
    }
    let text = JSONText.object([
      ("id", String(id)), ("type", JSONText.quoted(type)), ("body", JSONText.object(members)),
    ])
    return Array(text.utf8) + [0x0A]
  }

  private static func json(_ value: KDEConnectValue) -> String? {
    switch value {
    case .string(let text): JSONText.quoted(text)
    case .integer(let number): String(number)
    case .bool(let flag): flag ? "true" : "false"
    case .strings(let texts): JSONText.array(texts)
    case .null: "null"
    case .other: nil
    }
  }

  private static func value(of json: JSONValue) -> KDEConnectValue {
    switch json.kind {
    case .string(let text): return .string(text)
    case .bool(let flag): return .bool(flag)
    case .null: return .null
    case .number(let text): return Int64(text).map(KDEConnectValue.integer) ?? .other(kind: "a number with a fraction")
    case .array: return json.strings.map(KDEConnectValue.strings) ?? .other(kind: "a list of other than strings")
    case .object: return .other(kind: "an object")
    }
  }
}
