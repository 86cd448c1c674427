/// One of the seven eight-byte steps of a Kuando Busylight's program.
///
/// Layout (big-endian bit numbers of the 64-bit step): opcode in bits 60-63, operand (a jump's target step or
/// a keepalive's timeout) in bits 56-59; for a jump, then the repeat count, red, green, blue (each 0 to 100),
/// the on and off times of its blink in tenths of a second, and a last byte with the "update sound" bit (7),
/// the ringtone (bits 3-6) and the volume (bits 0-2). A step whose sound is not updated leaves whatever the
/// speaker plays as it is.
public enum KuandoStep: Equatable, Sendable {
  /// All zero: the device skips it.
  case empty
  /// Show a colour (blinking when both times are set) and go on to step `target`, after `repeatCount`
  /// more passes; with a `sound`, change what the speaker plays.
  case jump(
    target: UInt8, repeatCount: UInt8, color: LightColor, onTenths: UInt8, offTenths: UInt8, sound: KuandoSound?)
  /// Arm the device's watchdog: it goes dark and silent unless another report comes within `timeoutSeconds`
  /// (0 to 15).
  case keepAlive(timeoutSeconds: UInt8)
  /// Restart the device's firmware.
  case boot
  /// Reset the device's program.
  case reset

  /// The longest keepalive timeout a step carries (4 bits).
  public static let maximumTimeoutSeconds: UInt8 = 15

  /// The opcodes, in the top four bits of the first byte.
  enum Opcode: UInt8 {
    case jump = 0x1
    case reset = 0x2
    case boot = 0x4
    case keepAlive = 0x8
  }

  /// The step's eight bytes.
  public var bytes: [UInt8] {
    switch self {
    case .empty:
      return [UInt8](repeating: 0, count: 8)
    case .keepAlive(let timeout):
      return [Opcode.keepAlive.rawValue << 4 | min(timeout, Self.maximumTimeoutSeconds), 0, 0, 0, 0, 0, 0, 0]
    case .boot:
      return [Opcode.boot.rawValue << 4, 0, 0, 0, 0, 0, 0, 0]
    case .reset:
      return [Opcode.reset.rawValue << 4, 0, 0, 0, 0, 0, 0, 0]
    case .jump(let target, let repeatCount, let color, let on, let off, let sound):
      var last: UInt8 = 0
      if let sound { last = 0x80 | (sound.ringtone.rawValue & 0x0F) << 3 | (sound.volume & 0x07) }
      return [
        Opcode.jump.rawValue << 4 | (target & 0x0F), repeatCount, Self.percent(color.red), Self.percent(color.green),
        Self.percent(color.blue), on, off, last,
      ]
    }
  }

  /// A channel's 0-255 scaled to the device's 0-100, rounding down as the vendor's tools do.
  static func percent(_ channel: UInt8) -> UInt8 {
    UInt8(UInt16(channel) * 100 / 255)
  }
}
