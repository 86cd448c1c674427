/// The blink(1) commands CallAlert sends: eight-byte feature reports with report id 1, the command's
/// letter second. Times travel in tens of milliseconds, big-endian.
public enum Blink1Command: Equatable, Sendable {
  /// `c`: fade to a colour over `centiseconds` (tens of ms); `led` 0 is both LEDs, 1 the top, 2 the bottom.
  case fade(color: LightColor, centiseconds: UInt16, led: UInt8)
  /// `n`: set a colour at once, on both LEDs.
  case set(color: LightColor)
  /// `p`: play (or stop) the pattern stored in the device, from line `start` to `end`, `count` times (0:
  /// until stopped).
  case play(on: Bool, start: UInt8, end: UInt8, count: UInt8)
  /// `D`: the server tickle: while `on`, the device waits `centiseconds` for the next tickle and then, unless
  /// `stayLit`, goes dark (playing its stored lines `start` to `end`, which CallAlert leaves empty).
  case serverTickle(on: Bool, centiseconds: UInt16, stayLit: Bool, start: UInt8, end: UInt8)

  /// The report id blink(1) uses for its eight-byte commands.
  public static let reportID: UInt8 = 1

  /// The longest tickle timeout that fits (655.35 s).
  public static let maximumCentiseconds = UInt16.max

  /// The seven bytes after the report id.
  public var payload: [UInt8] {
    switch self {
    case .fade(let color, let time, let led):
      [UInt8(ascii: "c"), color.red, color.green, color.blue, UInt8(time >> 8), UInt8(time & 0xFF), led]
    case .set(let color):
      [UInt8(ascii: "n"), color.red, color.green, color.blue, 0, 0, 0]
    case .play(let on, let start, let end, let count):
      [UInt8(ascii: "p"), on ? 1 : 0, start, end, count, 0, 0]
    case .serverTickle(let on, let time, let stayLit, let start, let end):
      [UInt8(ascii: "D"), on ? 1 : 0, UInt8(time >> 8), UInt8(time & 0xFF), stayLit ? 1 : 0, start, end]
    }
  }

  /// The command as a feature report.
  public var report: LightReport {
    LightReport(channel: .feature, reportID: Self.reportID, payload: payload, meaning: meaning)
  }

  /// What it tells the device, for people.
  public var meaning: String {
    switch self {
    case .fade(let color, let time, let led):
      "fade to \(color.text) over \(Int(time) * 10) ms (led \(led))"
    case .set(let color): color.isDark ? "off" : "set \(color.text)"
    case .play(let on, let start, let end, let count):
      on
        ? "play stored lines \(start)-\(end) \(count == 0 ? "until stopped" : "\(count) times")" : "stop stored pattern"
    case .serverTickle(let on, let time, let stayLit, _, _):
      on
        ? "server tickle: \(stayLit ? "stay lit" : "go dark") unless tickled within \(Int(time) * 10) ms"
        : "server tickle off"
    }
  }
}
