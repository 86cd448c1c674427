/// A light's colour as red, green and blue, 0 to 255 each (the devices that count 0 to 100 scale it down).
public struct LightColor: Equatable, Hashable, Sendable {
  /// Red, 0 to 255.
  public var red: UInt8
  /// Green, 0 to 255.
  public var green: UInt8
  /// Blue, 0 to 255.
  public var blue: UInt8

  /// Creates a colour.
  public init(red: UInt8, green: UInt8, blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// No light at all.
  public static let dark = LightColor(red: 0, green: 0, blue: 0)

  /// Whether nothing would light up.
  public var isDark: Bool { red == 0 && green == 0 && blue == 0 }

  /// The colours the config may name, in the order its error messages list them.
  public static let named: [(name: String, color: LightColor)] = [
    ("red", LightColor(red: 255, green: 0, blue: 0)),
    ("green", LightColor(red: 0, green: 255, blue: 0)),
    ("blue", LightColor(red: 0, green: 0, blue: 255)),
    ("yellow", LightColor(red: 255, green: 255, blue: 0)),
    ("orange", LightColor(red: 255, green: 96, blue: 0)),
    ("purple", LightColor(red: 160, green: 0, blue: 255)),
    ("cyan", LightColor(red: 0, green: 255, blue: 255)),
    ("white", LightColor(red: 255, green: 255, blue: 255)),
  ]

  /// A named colour (`red`) or `#rrggbb`; nil for anything else.
  public init?(text: String) {
    if let match = Self.named.first(where: { $0.name == text }) {
      self = match.color
      return
    }
    let digits = Array(text.utf8)
    guard digits.count == 7, digits[0] == UInt8(ascii: "#") else { return nil }
    var values: [UInt8] = []
    var index = 1
    while index < 7 {
      guard let high = Self.hexValue(digits[index]), let low = Self.hexValue(digits[index + 1]) else { return nil }
      values.append(high << 4 | low)
      index += 2
    }
    self.init(red: values[0], green: values[1], blue: values[2])
  }

  /// `#rrggbb`.
  public var text: String {
    "#" + [red, green, blue].map { LightReport.hex($0) }.joined()
  }

  private static func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
