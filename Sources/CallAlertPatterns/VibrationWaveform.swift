import CallAlertProtocol

/// A vibration waveform with Android's `VibrationEffect.createWaveform(timings, amplitudes, repeat)`
/// semantics, so patterns can be copied from Android code.
///
/// - `timings` are durations in ms. Without `amplitudes` they alternate off and on, starting with off
///   (the `createWaveform(timings, repeat)` form, like `Vibrator.vibrate(long[], int)`).
/// - `amplitudes`, when present, has one entry per timing: 0 (off) to 255 (full); -1 is Android's
///   `DEFAULT_AMPLITUDE`, which the board plays at 255 because it has no device default.
/// - `repeat` is the index into `timings` where the loop starts, or -1 for no repeat. A repeating
///   waveform loops until the board's cap (as Android loops until cancelled).
public struct VibrationWaveform: Equatable, Sendable {
  /// Android's `VibrationEffect.DEFAULT_AMPLITUDE`.
  public static let defaultAmplitude = -1

  /// Durations in ms, each 0 or more.
  public var timings: [Int]
  /// One amplitude per timing (0-255 or -1), or nil to alternate off and on.
  public var amplitudes: [Int]?
  /// The timing index the loop starts at, or -1 to play once.
  public var repeatIndex: Int

  /// Creates a waveform.
  public init(timings: [Int], amplitudes: [Int]? = nil, repeatIndex: Int = -1) {
    self.timings = timings
    self.amplitudes = amplitudes
    self.repeatIndex = repeatIndex
  }

  /// AOSP's default vibration, `DEFAULT_VIBRATE_PATTERN = {0, 250, 250, 250}` in
  /// `NotificationManagerService` (and `VibratorHelper`): two 250 ms bumps, played once. It is the
  /// default for notifications, which is what Android apps get when they ask for "the default".
  public static let androidDefault = VibrationWaveform(timings: [0, 250, 250, 250])

  /// Telecom's simple ring vibration (`Ringer.SIMPLE_VIBRATION_PATTERN` {0, 1000, 1000} with amplitudes
  /// {0, 255, 0}, repeating from index 1), used when a device sets `use_simple_vibration_pattern`.
  public static let androidSimple = VibrationWaveform(
    timings: [0, 1_000, 1_000], amplitudes: [0, 255, 0], repeatIndex: 1)

  /// Telecom's default ring vibration (`Ringer.PULSE_PATTERN` and `PULSE_AMPLITUDE`, repeating from
  /// `REPEAT_VIBRATION_AT = 5`): two 12 ms priming taps, then an ease-in from 30 % to full in 50 ms
  /// steps, 300 ms at full, 1 s off; the ramp and pause repeat.
  public static let androidPulse = VibrationWaveform(
    timings: [0, 12, 250, 12, 500] + [50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 300, 1_000],
    amplitudes: [0, 255, 0, 255, 0] + [77, 77, 78, 79, 81, 84, 87, 93, 101, 114, 133, 162, 205, 255, 255, 0],
    repeatIndex: 5)

  /// The strongest vibration the board's motor guard lets run for a whole ring (PROTOCOL.md §13.6: at most 70 %
  /// on over a minute, 15 s at a stretch): 1.3 s at full, 0.7 s off (65 %), repeating. It is what a push's
  /// `act: 4` asks for (the hint `steady_vibration`): an alert to be felt, in a pocket or under a pillow.
  public static let steady = VibrationWaveform(timings: [0, 1_300, 700], amplitudes: [0, 255, 0], repeatIndex: 1)

  /// The built-in waveforms by name.
  public static let builtIns: [(name: String, waveform: VibrationWaveform)] = [
    ("android_default", .androidDefault), ("android_simple", .androidSimple), ("android_pulse", .androidPulse),
    ("steady_vibration", .steady),
  ]

  /// A built-in waveform by name (any case).
  public static func builtIn(named name: String) -> VibrationWaveform? {
    builtIns.first { $0.name == name.lowercased() }?.waveform
  }

  /// A problem with a waveform, with the index of the offending entry where there is one.
  public struct Problem: Equatable, Sendable {
    /// What the problem concerns.
    public enum Field: Equatable, Sendable {
      /// `timings[index]`, or the list as a whole when nil.
      case timing(Int?)
      /// `amplitudes[index]`, or the list as a whole when nil.
      case amplitude(Int?)
      /// The repeat index.
      case repeatIndex
    }

    /// Where.
    public var field: Field
    /// What is wrong and what to change.
    public var message: String
  }

  /// The problems Android's `createWaveform` would throw for, plus a loop of nothing; empty when valid.
  public func problems() -> [Problem] {
    var problems: [Problem] = []
    if timings.isEmpty {
      problems.append(Problem(field: .timing(nil), message: "timings is empty; give at least one duration"))
    }
    for (index, timing) in timings.enumerated() where timing < 0 {
      problems.append(
        Problem(field: .timing(index), message: "timing \(index) is \(timing) ms; durations are 0 or more"))
    }
    if let amplitudes {
      if amplitudes.count != timings.count {
        problems.append(
          Problem(
            field: .amplitude(nil),
            message:
              "amplitudes has \(amplitudes.count) entries but timings has \(timings.count); "
              + "give one amplitude per timing"
          ))
      }
      for (index, amplitude) in amplitudes.enumerated() where !(0...255).contains(amplitude) && amplitude != -1 {
        problems.append(
          Problem(
            field: .amplitude(index),
            message: "amplitude \(index) is \(amplitude); use 0-255, or -1 (default) for full intensity"))
      }
    }
    if repeatIndex < -1 || repeatIndex >= max(timings.count, 1) {
      problems.append(
        Problem(
          field: .repeatIndex,
          message: "repeat \(repeatIndex) is not a timing index; use -1 (no repeat) or 0-\(max(timings.count - 1, 0))"))
    } else if repeatIndex >= 0, timings[repeatIndex...].allSatisfy({ $0 <= 0 }) {
      problems.append(
        Problem(
          field: .repeatIndex,
          message: "the timings from repeat index \(repeatIndex) on are all 0 ms; the loop would be empty"))
    }
    if !timings.isEmpty, timings.allSatisfy({ $0 <= 0 }) {
      problems.append(Problem(field: .timing(nil), message: "every timing is 0 ms; give at least one duration above 0"))
    }
    return problems
  }

  /// The intensity of timing `index`, 0-255.
  public func intensity(at index: Int) -> UInt8 {
    guard let amplitudes else { return index % 2 == 0 ? 0 : 255 }
    let amplitude = index < amplitudes.count ? amplitudes[index] : 0
    return amplitude == VibrationWaveform.defaultAmplitude ? 255 : UInt8(clamping: amplitude)
  }

  /// The pattern: LEDs `leds` lit while the motor runs; a repeating waveform loops `repeatCount` extra
  /// times (default: until the cap), a non-repeating one plays `repeatCount` extra times (default: once).
  /// Nil when ``problems()`` is not empty.
  public func pattern(leds: UInt8 = 0, repeatCount: UInt8? = nil) -> Pattern? {
    guard problems().isEmpty else { return nil }
    var builder = PatternBuilder(merges: true)
    build(into: &builder, leds: leds) {
      StepOrigin(.timing(index: $0), at: SourceLocation(file: "builtin", line: 1, column: 1))
    }
    return try? builder.build(repeatCount: effectiveRepeatCount(repeatCount)).pattern
  }

  /// The wire repeat count: an explicit count wins; otherwise forever when the waveform repeats.
  func effectiveRepeatCount(_ repeatCount: UInt8?) -> UInt8 {
    repeatCount ?? (repeatIndex >= 0 ? Pattern.repeatForever : 0)
  }

  /// Appends the waveform's timings, marking the loop start at the repeat index.
  func build(into builder: inout PatternBuilder, leds: UInt8, origin: (Int) -> StepOrigin) {
    for (index, timing) in timings.enumerated() {
      if index == repeatIndex { builder.markLoopStart() }
      let motor = intensity(at: index)
      builder.add(ms: timing, motor: motor, leds: motor == 0 ? 0 : leds, origin: origin(index))
    }
  }
}
