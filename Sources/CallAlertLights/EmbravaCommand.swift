/// What an Embrava Blynclight shows: one nine-byte output report (report id 0 first) that carries the whole
/// state, colours in red, blue, green order.
///
/// Layout after the id: red, blue, green; a control byte (bit 0 light off, bit 1 dim, bit 2 flash, bits 3-5
/// flash speed); a music byte (bits 0-3 tune, bit 4 play, bit 5 repeat); a volume byte (bits 0-3 volume,
/// bit 4 mute); then the end marker ff 22. CallAlert plays no Blynclight sound: the models it lists have none.
public struct EmbravaCommand: Equatable, Sendable {
  /// How fast a flashing light blinks.
  public enum FlashSpeed: UInt8, Equatable, Sendable {
    /// About once a second.
    case slow = 1
    /// Faster.
    case medium = 2
    /// Fastest.
    case fast = 4
  }

  /// The colour; dark turns the light off.
  public var color: LightColor
  /// Half brightness.
  public var dim: Bool
  /// Flashing, at ``speed``; false: steady.
  public var flashes: Bool
  /// The flash speed; carried in every report (slow by default), as the vendor's tools do, flashing or not.
  public var speed: FlashSpeed

  /// Creates a state.
  public init(color: LightColor, dim: Bool = false, flashes: Bool = false, speed: FlashSpeed = .slow) {
    self.color = color
    self.dim = dim
    self.flashes = flashes
    self.speed = speed
  }

  /// The light off.
  public static let off = EmbravaCommand(color: .dark)

  /// The eight bytes after the report id.
  public var payload: [UInt8] {
    var control: UInt8 = color.isDark ? 0x01 : 0x00
    if dim { control |= 0x02 }
    if flashes { control |= 0x04 }
    control |= (speed.rawValue & 0x07) << 3
    return [color.red, color.blue, color.green, control, 0, 0, 0xFF, 0x22]
  }

  /// The state as an output report.
  public var report: LightReport {
    let meaning =
      color.isDark
      ? "off" : "show \(color.text)\(dim ? " dimmed" : "")\(flashes ? " flashing (speed \(speed.rawValue))" : "")"
    return LightReport(channel: .output, reportID: 0, payload: payload, meaning: meaning)
  }
}
