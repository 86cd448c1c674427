/// The Luxafor commands CallAlert sends: eight-byte output reports (report id 0), the command number first.
public enum LuxaforCommand: Equatable, Sendable {
  /// 1: show a colour at once.
  case color(led: LuxaforLEDs, color: LightColor)
  /// 2: fade to a colour; `speed` 0 (fast) to 255 (slow).
  case fade(led: LuxaforLEDs, color: LightColor, speed: UInt8)
  /// 3: strobe a colour `repeatCount` times (0: until the next command); `speed` 0 (fast) to 255 (slow).
  case strobe(led: LuxaforLEDs, color: LightColor, speed: UInt8, repeatCount: UInt8)
  /// 4: run a wave of `type` (1 to 5) in a colour `repeatCount` times; `speed` 0 (fast) to 255 (slow).
  case wave(type: UInt8, color: LightColor, repeatCount: UInt8, speed: UInt8)

  /// The eight bytes after the report id.
  public var payload: [UInt8] {
    switch self {
    case .color(let led, let color):
      [1, led.rawValue, color.red, color.green, color.blue, 0, 0, 0]
    case .fade(let led, let color, let speed):
      [2, led.rawValue, color.red, color.green, color.blue, speed, 0, 0]
    case .strobe(let led, let color, let speed, let repeatCount):
      [3, led.rawValue, color.red, color.green, color.blue, speed, 0, repeatCount]
    case .wave(let type, let color, let repeatCount, let speed):
      [4, type, color.red, color.green, color.blue, 0, repeatCount, speed]
    }
  }

  /// The command as an output report.
  public var report: LightReport {
    LightReport(channel: .output, reportID: 0, payload: payload, meaning: meaning)
  }

  /// What it tells the device, for people.
  public var meaning: String {
    switch self {
    case .color(_, let color): color.isDark ? "off" : "show \(color.text)"
    case .fade(_, let color, let speed): "fade to \(color.text) (speed \(speed))"
    case .strobe(_, let color, let speed, let count): "strobe \(color.text) (speed \(speed), \(count) times)"
    case .wave(let type, let color, let count, let speed):
      "wave \(type) in \(color.text) (speed \(speed), \(count) times)"
    }
  }
}

/// Which of a Luxafor Flag's six LEDs a command lights.
public enum LuxaforLEDs: UInt8, Equatable, Sendable {
  /// All six.
  case all = 0xFF
  /// The three at the back.
  case back = 0x41
  /// The three at the front.
  case front = 0x42
}
