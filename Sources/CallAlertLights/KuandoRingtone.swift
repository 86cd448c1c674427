/// The ringtones a Kuando Busylight plays, as the 4-bit codes its program step carries (bits 3-6 of the
/// step's last byte). The codes follow the vendor's list; 9 and 10 are not ringtones.
public enum KuandoRingtone: UInt8, CaseIterable, Equatable, Sendable {
  /// Silence.
  case off = 0
  /// "OpenOffice".
  case openOffice = 1
  /// "Quiet".
  case quiet = 2
  /// "Funky".
  case funky = 3
  /// "FairyTale".
  case fairyTale = 4
  /// "KuandoTrain".
  case kuandoTrain = 5
  /// "TelephoneNordic".
  case telephoneNordic = 6
  /// "TelephoneOriginal".
  case telephoneOriginal = 7
  /// "TelephonePickMeUp".
  case telephonePickMeUp = 8
  /// "Buzz".
  case buzz = 11

  /// The name the config and the docs use, the vendor's with a lower-case first letter.
  public var name: String {
    switch self {
    case .off: "off"
    case .openOffice: "openOffice"
    case .quiet: "quiet"
    case .funky: "funky"
    case .fairyTale: "fairyTale"
    case .kuandoTrain: "kuandoTrain"
    case .telephoneNordic: "telephoneNordic"
    case .telephoneOriginal: "telephoneOriginal"
    case .telephonePickMeUp: "pickMeUp"
    case .buzz: "buzz"
    }
  }

  /// The ringtone the config names, if any.
  public init?(name: String) {
    guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
    self = match
  }
}
