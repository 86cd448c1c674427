/// The board's absolute cap: nothing plays longer than this, whatever a PLAY says.
public let absoluteCapMs: UInt16 = 30_000

/// Where PLAY's pattern comes from.
public enum PatternSource: Equatable, Sendable {
  /// A slot of the installed table.
  case slot(UInt8)
  /// A pattern sent with the command.
  case inline(Pattern)
}

/// Channels PLAY silences (do-not-disturb's silent mode plays with the motor only).
public struct PlayOptions: OptionSet, Equatable, Sendable {
  /// The option byte.
  public let rawValue: UInt8
  /// Creates options from the byte.
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// Bit 0: keep the buzzer silent.
  public static let muteBuzzer = PlayOptions(rawValue: 0x01)
  /// Bit 1: keep the motors still.
  public static let muteMotor = PlayOptions(rawValue: 0x02)
  /// Bit 2: keep the LEDs dark (the indicator is unaffected).
  public static let muteLeds = PlayOptions(rawValue: 0x04)
  /// The bits v1 defines.
  public static let defined: PlayOptions = [.muteBuzzer, .muteMotor, .muteLeds]
}

/// PLAY's payload: play a pattern under a token until it completes, is stopped, reaches its cap or the
/// lease lapses.
///
/// Layout: token u32 (not 0), cap_ms u16 (0 or above 30 000 means 30 000), options u8 (``PlayOptions``),
/// source u8 (0 slot, 1 inline), then slot u8 or a ``Pattern`` encoding. A PLAY with another token replaces
/// the playing alert, which ends with reason `superseded`; one with the playing token restarts it.
public struct PlayRequest: Equatable, Sendable {
  /// The host's name for this alert; PLAY_ENDED and STOP use it.
  public var token: UInt32
  /// The cap the board enforces itself; ``effectiveCapMs`` is what applies.
  public var capMs: UInt16
  /// Channels to keep silent.
  public var options: PlayOptions
  /// The pattern.
  public var source: PatternSource

  /// Creates a request.
  public init(token: UInt32, capMs: UInt16, options: PlayOptions = [], source: PatternSource) {
    self.token = token
    self.capMs = capMs
    self.options = options
    self.source = source
  }

  /// The cap after the board's rule: 0 or anything above 30 000 ms means 30 000 ms.
  public var effectiveCapMs: UInt16 { capMs == 0 || capMs > absoluteCapMs ? absoluteCapMs : capMs }

  func encode(into w: inout ByteWriter) {
    w.u32(token)
    w.u16(capMs)
    w.u8(options.rawValue)
    switch source {
    case .slot(let slot):
      w.u8(0)
      w.u8(slot)
    case .inline(let pattern):
      w.u8(1)
      pattern.encode(into: &w)
    }
  }

  static func decode(_ r: inout ByteReader) throws(PayloadError) -> PlayRequest {
    let token = try r.u32("token")
    let cap = try r.u16("cap_ms")
    let options = PlayOptions(rawValue: try r.u8("options"))
    guard PlayOptions.defined.isSuperset(of: options) else { throw r.invalid("options", width: 1) }
    let source: PatternSource
    switch try r.u8("source") {
    case 0: source = .slot(try r.u8("slot"))
    case 1: source = .inline(try Pattern.decode(&r))
    default: throw r.invalid("source", width: 1)
    }
    return PlayRequest(token: token, capMs: cap, options: options, source: source)
  }
}

/// An LED's indicator mode.
public enum IndicatorMode: UInt8, Equatable, Sendable {
  /// Dark.
  case off = 0
  /// Lit.
  case on = 1
  /// Lit for on_ms, dark for off_ms, repeatedly (e.g. missed calls until acknowledged).
  case blink = 2
}

/// SET_INDICATOR's payload. Layout, 6 bytes: led u8, mode u8 (``IndicatorMode``), on_ms u16, off_ms u16
/// (both at least 1 for blink; ignored otherwise). A playing pattern's LED bits show over the indicator.
public struct IndicatorSetting: Equatable, Sendable {
  /// The LED.
  public var led: UInt8
  /// Off, on or blink.
  public var mode: IndicatorMode
  /// Lit time per blink.
  public var onMs: UInt16
  /// Dark time per blink.
  public var offMs: UInt16

  /// Creates a setting.
  public init(led: UInt8 = 0, mode: IndicatorMode, onMs: UInt16 = 0, offMs: UInt16 = 0) {
    self.led = led
    self.mode = mode
    self.onMs = onMs
    self.offMs = offMs
  }

  func encode(into w: inout ByteWriter) {
    w.u8(led)
    w.u8(mode.rawValue)
    w.u16(onMs)
    w.u16(offMs)
  }

  static func decode(_ r: inout ByteReader) throws(PayloadError) -> IndicatorSetting {
    let led = try r.u8("led")
    guard let mode = IndicatorMode(rawValue: try r.u8("mode")) else { throw r.invalid("mode", width: 1) }
    let on = try r.u16("on_ms")
    let off = try r.u16("off_ms")
    if mode == .blink && (on == 0 || off == 0) { throw r.invalid(on == 0 ? "on_ms" : "off_ms", width: on == 0 ? 4 : 2) }
    return IndicatorSetting(led: led, mode: mode, onMs: on, offMs: off)
  }
}
