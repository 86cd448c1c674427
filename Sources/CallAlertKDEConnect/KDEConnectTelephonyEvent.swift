import CallAlertText

/// What a `kdeconnect.telephony` packet says about a call on the phone.
///
/// The Android app sends `ringing` when the phone rings, `talking` when a call is taken (or placed), and when
/// the line goes idle it sends its last packet again with `isCancel` set (the string `"true"`), followed by
/// `missedCall` if that last packet was `ringing`. Other events (the old `sms`) are not about calls.
public struct KDEConnectTelephonyEvent: Equatable, Sendable {
  /// The event, as the phone names it.
  public enum Kind: String, Equatable, Sendable {
    /// The phone rings.
    case ringing
    /// A call is in progress (answered, or placed from the phone).
    case talking
    /// A call rang and was not answered.
    case missedCall
  }

  /// What happened.
  public var kind: Kind
  /// Whether this ends the event it names (`isCancel`): the ringing or the talking is over.
  public var isCancel: Bool
  /// The caller's number, as the phone has it; nil when withheld.
  public var phoneNumber: String?
  /// The caller's name from the phone's contacts (the Android app sends the number here when it knows no name).
  public var contactName: String?

  /// Creates an event.
  public init(kind: Kind, isCancel: Bool = false, phoneNumber: String? = nil, contactName: String? = nil) {
    self.kind = kind
    self.isCancel = isCancel
    self.phoneNumber = phoneNumber
    self.contactName = contactName
  }

  /// Reads a telephony packet; nil for an event that is not about calls (`sms`).
  ///
  /// - Throws: ``InputError`` at the packet's place for a packet of another type, a missing `event`, an
  ///   `isCancel` that is neither a boolean nor `"true"`/`"false"`, or a number or name that is not a string.
  public static func read(_ packet: KDEConnectPacket) throws(InputError) -> KDEConnectTelephonyEvent? {
    guard packet.type == KDEConnectPacket.telephonyType else {
      throw packet.error("type", "\"\(packet.type)\" is not a telephony packet (kdeconnect.telephony)")
    }
    guard let event = packet["event"] else {
      throw packet.error("event", "missing; say ringing, talking or missedCall")
    }
    guard let name = event.string else {
      throw packet.error("event", "\(event.kindDescription) is not an event such as \"ringing\"")
    }
    guard let kind = Kind(rawValue: name) else { return nil }
    var isCancel = false
    switch packet["isCancel"] {
    case nil, .null: break
    case .bool(let flag): isCancel = flag
    case .string("true"): isCancel = true
    case .string("false"): isCancel = false
    case let other?:
      throw packet.error("isCancel", "\(other.kindDescription) is not true or false (or the string \"true\")")
    }
    return KDEConnectTelephonyEvent(
      kind: kind, isCancel: isCancel, phoneNumber: try text(packet, "phoneNumber"),
      contactName: try text(packet, "contactName"))
  }

  private static func text(_ packet: KDEConnectPacket, _ key: String) throws(InputError) -> String? {
    switch packet[key] {
    case nil, .null: return nil
    case .string(let text): return text.isEmpty ? nil : text
    case let other?: throw packet.error(key, "\(other.kindDescription) is not text")
    }
  }
}
