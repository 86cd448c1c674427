/// One step of a pattern: for `durationMs`, the buzzer sounds `buzzerHz` at `buzzerVolume`, the motors
/// run at `motor` and the LEDs in `leds` are lit.
///
/// Wire layout, 7 bytes: duration_ms u16, buzzer_hz u16 (0 = silent), buzzer_volume u8, motor u8
/// (0 = off, 255 = full, applied to every motor channel), leds u8 (bit n = LED n).
public struct PatternStep: Equatable, Sendable {
  /// The encoded size of one step.
  public static let size = 7

  /// How long the step lasts, 1 to 65 535 ms.
  public var durationMs: UInt16
  /// The buzzer's frequency; 0 keeps it silent.
  public var buzzerHz: UInt16
  /// The buzzer's volume, 0 to 255.
  public var buzzerVolume: UInt8
  /// The motors' intensity, 0 (off) to 255 (full).
  public var motor: UInt8
  /// LEDs lit during the step, one bit each.
  public var leds: UInt8

  /// Creates a step.
  public init(durationMs: UInt16, buzzerHz: UInt16 = 0, buzzerVolume: UInt8 = 0, motor: UInt8 = 0, leds: UInt8 = 0) {
    self.durationMs = durationMs
    self.buzzerHz = buzzerHz
    self.buzzerVolume = buzzerVolume
    self.motor = motor
    self.leds = leds
  }

  /// Whether the buzzer sounds in this step.
  public var isAudible: Bool { buzzerHz != 0 && buzzerVolume != 0 }
}

/// A ring/vibrate pattern: steps played in order, then the steps from `loopStart` on repeated.
///
/// Wire layout: flags u8 (reserved, 0), repeat u8, loop_start u16, step_count u16, then step_count steps
/// of ``PatternStep/size`` bytes. `repeat` counts the extra passes over steps `loop_start ..< step_count`
/// after the first full pass: 0 plays once, 255 repeats until the cap stops it.
public struct Pattern: Equatable, Sendable {
  /// The encoded size of the header before the steps.
  public static let headerSize = 6
  /// The `repeat` value meaning "until the cap".
  public static let repeatForever: UInt8 = 255

  /// Extra passes over the loop; ``repeatForever`` loops until the cap.
  public var repeatCount: UInt8
  /// The first step of the looped part.
  public var loopStart: UInt16
  /// The steps, at least one.
  public var steps: [PatternStep]

  /// Creates a pattern.
  public init(steps: [PatternStep], repeatCount: UInt8 = 0, loopStart: UInt16 = 0) {
    self.steps = steps
    self.repeatCount = repeatCount
    self.loopStart = loopStart
  }

  /// The encoded size in bytes.
  public var encodedSize: Int { Pattern.headerSize + steps.count * PatternStep.size }

  /// The length of one pass over the loop, in milliseconds.
  public var loopDurationMs: UInt32 {
    var total: UInt32 = 0
    for step in steps[Int(loopStart)...] { total += UInt32(step.durationMs) }
    return total
  }

  /// The pattern's natural length in milliseconds, or nil when it repeats until the cap.
  public var totalDurationMs: UInt32? {
    if repeatCount == Pattern.repeatForever { return nil }
    var first: UInt32 = 0
    for step in steps { first += UInt32(step.durationMs) }
    return first + UInt32(repeatCount) * loopDurationMs
  }

  /// Appends the wire encoding.
  public func encode(into writer: inout ByteWriter) {
    writer.u8(0)
    writer.u8(repeatCount)
    writer.u16(loopStart)
    writer.u16(UInt16(truncatingIfNeeded: steps.count))
    for step in steps {
      writer.u16(step.durationMs)
      writer.u16(step.buzzerHz)
      writer.u8(step.buzzerVolume)
      writer.u8(step.motor)
      writer.u8(step.leds)
    }
  }

  /// The wire encoding.
  public func encoded() -> [UInt8] {
    var writer = ByteWriter(capacity: encodedSize)
    encode(into: &writer)
    return writer.bytes
  }

  /// Reads a pattern that ends where the reader's bytes end.
  ///
  /// Checks the rules every board enforces: flags 0, at least one step, loop_start inside the steps,
  /// no zero-length step. Capability limits (steps, frequencies) are the board's to check.
  public static func decode(_ reader: inout ByteReader) throws(PayloadError) -> Pattern {
    let flags = try reader.u8("pattern.flags")
    guard flags == 0 else { throw reader.invalid("pattern.flags", width: 1) }
    let repeatCount = try reader.u8("pattern.repeat")
    let loopStart = try reader.u16("pattern.loop_start")
    let count = try reader.u16("pattern.step_count")
    guard count > 0 else { throw reader.invalid("pattern.step_count", width: 2) }
    guard loopStart < count else {
      throw PayloadError(.invalidValue, field: "pattern.loop_start", offset: reader.offset - 4)
    }
    guard reader.remaining >= Int(count) * PatternStep.size else {
      throw PayloadError(.truncated, field: "pattern.steps", offset: reader.offset)
    }
    var steps: [PatternStep] = []
    steps.reserveCapacity(Int(count))
    for _ in 0..<count {
      let duration = try reader.u16("step.duration_ms")
      guard duration > 0 else { throw reader.invalid("step.duration_ms", width: 2) }
      steps.append(
        PatternStep(
          durationMs: duration, buzzerHz: try reader.u16("step.buzzer_hz"),
          buzzerVolume: try reader.u8("step.buzzer_volume"), motor: try reader.u8("step.motor"),
          leds: try reader.u8("step.leds")))
    }
    return Pattern(steps: steps, repeatCount: repeatCount, loopStart: loopStart)
  }

  /// Reads a pattern from exactly `bytes`.
  public static func decode(_ bytes: [UInt8]) throws(PayloadError) -> Pattern {
    var reader = ByteReader(bytes)
    let pattern = try decode(&reader)
    try reader.expectEnd("pattern.steps")
    return pattern
  }
}
