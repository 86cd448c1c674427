/// The USB presence lights CallAlert drives as boards, by maker.
public enum LightKind: String, CaseIterable, Equatable, Hashable, Sendable {
  /// Kuando Busylight Alpha and Omega: light and a speaker with ringtones; a device-side keepalive timeout.
  case kuando
  /// ThingM blink(1): two LEDs driven by feature reports; a server tickle turns it off when the host stops.
  case blink1
  /// Luxafor Flag, Orb and Mute: six LEDs; no timer of its own.
  case luxafor
  /// Embrava Blynclight (and its Mini): one light; no timer of its own.
  case embrava

  /// The vendor and product ids of the models of this kind.
  public var deviceIDs: [USBDeviceID] {
    switch self {
    case .kuando:
      [0x3BCA, 0x3BCB, 0x3BCD, 0x3BCE, 0x3BCF].map { USBDeviceID(vendor: 0x27BB, product: $0) }
        + [USBDeviceID(vendor: 0x04D8, product: 0xF848)]
    case .blink1: [USBDeviceID(vendor: 0x27B8, product: 0x01ED)]
    case .luxafor: [USBDeviceID(vendor: 0x04D8, product: 0xF372)]
    case .embrava:
      [0x0001, 0x000A, 0x000C].map { USBDeviceID(vendor: 0x2C0D, product: $0) }
        + [USBDeviceID(vendor: 0x0E53, product: 0x2516), USBDeviceID(vendor: 0x0E53, product: 0x2517)]
    }
  }

  /// The kind whose models include `id`, if any.
  public static func of(_ id: USBDeviceID) -> LightKind? {
    allCases.first { $0.deviceIDs.contains(id) }
  }

  /// The maker's name for people.
  public var displayName: String {
    switch self {
    case .kuando: "Kuando Busylight"
    case .blink1: "ThingM blink(1)"
    case .luxafor: "Luxafor"
    case .embrava: "Embrava Blynclight"
    }
  }

  /// Whether the device goes dark by itself when the host stops talking to it (a Kuando's keepalive
  /// timeout, a blink(1)'s server tickle); the others stay lit until told otherwise.
  public var hasDeviceTimer: Bool {
    switch self {
    case .kuando, .blink1: true
    case .luxafor, .embrava: false
    }
  }

  /// Whether it plays sound (a Kuando's ringtones).
  public var playsSound: Bool { self == .kuando }
}
