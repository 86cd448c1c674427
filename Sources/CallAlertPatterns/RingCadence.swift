import CallAlertProtocol

/// A national ring cadence: the ringing tone callers hear, after ITU-T E.180 Supplement 2 (values as
/// collected in Asterisk's `indications.conf`), turned into a pattern for a buzzer that plays one
/// frequency at a time.
///
/// A dual tone such as 440+480 Hz cannot be played as such, so each on-period alternates the two
/// frequencies in short slices (``Options/sliceMs``, 25 ms by default). Alternating sounds closer to a
/// dual tone than the mean frequency does: the ear hears both pitches and a warble near their beat,
/// where a steady 460 Hz is a plain beep. ``DualTone/mean`` is the alternative, one step per on-period.
/// A modulated tone such as Japan's 400 Hz × 16 Hz is gated: tone and silence alternate every half
/// modulation period (31.25 ms), the flutter of full-depth modulation; ``Modulation/steady`` plays the
/// carrier alone.
public enum RingCadence: String, CaseIterable, Equatable, Hashable, Sendable {
  /// United States: 440+480 Hz, 2.0 s on, 4.0 s off.
  case unitedStates = "US"
  /// United Kingdom: 400+450 Hz, 0.4 on, 0.2 off, 0.4 on, 2.0 off.
  case unitedKingdom = "UK"
  /// Germany: 425 Hz, 1.0 on, 4.0 off.
  case germany = "DE"
  /// France: 440 Hz, 1.5 on, 3.5 off.
  case france = "FR"
  /// Japan: 400 Hz modulated by 16 Hz, 1.0 on, 2.0 off.
  case japan = "JP"
  /// Australia: 400+450 Hz, 0.4 on, 0.2 off, 0.4 on, 2.0 off.
  case australia = "AU"
  /// Spain: 425 Hz, 1.5 on, 3.0 off.
  case spain = "ES"
  /// Italy: 425 Hz, 1.0 on, 4.0 off.
  case italy = "IT"
  /// India: 400 Hz modulated by 25 Hz, 0.4 on, 0.2 off, 0.4 on, 2.0 off.
  case india = "IN"

  /// The tone sounded during on-periods.
  public enum Tone: Equatable, Hashable, Sendable {
    /// One frequency.
    case single(UInt16)
    /// Two frequencies sounding together (the lower first).
    case dual(UInt16, UInt16)
    /// A carrier amplitude-modulated by a low frequency.
    case modulated(carrier: UInt16, by: UInt16)
  }

  /// How a dual tone is played on a one-tone buzzer.
  public enum DualTone: String, CaseIterable, Equatable, Hashable, Sendable {
    /// The two frequencies alternate in slices of ``Options/sliceMs``.
    case alternate
    /// Their mean, rounded, as one steady tone.
    case mean
  }

  /// How a modulated tone is played.
  public enum Modulation: String, CaseIterable, Equatable, Hashable, Sendable {
    /// The carrier is switched on and off every half period of the modulation.
    case gate
    /// The carrier alone, steady.
    case steady
  }

  /// How a cadence becomes a pattern.
  public struct Options: Equatable, Sendable {
    /// The buzzer's volume during on-periods.
    public var volume: UInt8
    /// The motor's intensity during on-periods (0 keeps it still); by default ``defaultMotor``, so a
    /// cadence rings and vibrates together, as a phone does.
    public var motor: UInt8
    /// LEDs lit during on-periods.
    public var leds: UInt8
    /// The slice length for alternating dual tones, at least 1 ms.
    public var sliceMs: Int
    /// How dual tones are played.
    public var dualTone: DualTone
    /// How modulated tones are played.
    public var modulation: Modulation
    /// Extra passes after the first; ``Pattern/repeatForever`` (the default) rings until the cap.
    public var repeatCount: UInt8

    /// The motor's intensity during on-periods unless told otherwise: full, as a phone vibrates while it
    /// rings. A rule with `buzzer_only` (or a pattern's `motor: 0`) keeps the motor still.
    public static let defaultMotor: UInt8 = 255

    /// The default slice: short enough to hear both tones, long enough for a buzzer to settle (~10 periods).
    public static let defaultSliceMs = 25

    /// Creates options; the defaults ring at full volume with the motor at full intensity during the
    /// on-periods, without LEDs, until the cap.
    public init(
      volume: UInt8 = 255, motor: UInt8 = Options.defaultMotor, leds: UInt8 = 0, sliceMs: Int = Options.defaultSliceMs,
      dualTone: DualTone = .alternate, modulation: Modulation = .gate, repeatCount: UInt8 = Pattern.repeatForever
    ) {
      self.volume = volume
      self.motor = motor
      self.leds = leds
      self.sliceMs = sliceMs
      self.dualTone = dualTone
      self.modulation = modulation
      self.repeatCount = repeatCount
    }
  }

  /// The country's name in English.
  public var country: String {
    switch self {
    case .unitedStates: "United States"
    case .unitedKingdom: "United Kingdom"
    case .germany: "Germany"
    case .france: "France"
    case .japan: "Japan"
    case .australia: "Australia"
    case .spain: "Spain"
    case .italy: "Italy"
    case .india: "India"
    }
  }

  /// The ringing tone's frequencies.
  public var tone: Tone {
    switch self {
    case .unitedStates: .dual(440, 480)
    case .unitedKingdom, .australia: .dual(400, 450)
    case .germany, .spain, .italy: .single(425)
    case .france: .single(440)
    case .japan: .modulated(carrier: 400, by: 16)
    case .india: .modulated(carrier: 400, by: 25)
    }
  }

  /// The cadence: on, off, on, off … in milliseconds, one cycle.
  public var intervalsMs: [Int] {
    switch self {
    case .unitedStates: [2_000, 4_000]
    case .unitedKingdom, .australia, .india: [400, 200, 400, 2_000]
    case .germany, .italy: [1_000, 4_000]
    case .france: [1_500, 3_500]
    case .japan: [1_000, 2_000]
    case .spain: [1_500, 3_000]
    }
  }

  /// The cadence for a code such as `US` or `uk` (any case).
  public init?(code: String) {
    self.init(rawValue: code.uppercased())
  }

  /// The buzzer's part of one on-period: (duration, frequency) slices, frequency 0 for a gated silence.
  public func onPeriod(lengthMs: Int, options: Options = Options()) -> [(ms: Int, hz: UInt16)] {
    switch tone {
    case .single(let hz):
      return [(lengthMs, hz)]
    case .dual(let low, let high):
      if options.dualTone == .mean { return [(lengthMs, UInt16((Int(low) + Int(high) + 1) / 2))] }
      let slice = max(1, options.sliceMs)
      var slices: [(ms: Int, hz: UInt16)] = []
      var start = 0
      while start < lengthMs {
        let ms = min(slice, lengthMs - start)
        slices.append((ms, slices.count % 2 == 0 ? low : high))
        start += ms
      }
      return slices
    case .modulated(let carrier, let modulationHz):
      guard options.modulation == .gate, modulationHz > 0 else { return [(lengthMs, carrier)] }
      // Half-period boundaries at round(k × 500 / f) ms, so the gating keeps the exact rate on average.
      var slices: [(ms: Int, hz: UInt16)] = []
      var previous = 0
      var half = 1
      while previous < lengthMs {
        let boundary = min(lengthMs, (1_000 * half + Int(modulationHz)) / (2 * Int(modulationHz)))
        slices.append((boundary - previous, half % 2 == 1 ? carrier : 0))
        previous = boundary
        half += 1
      }
      return slices
    }
  }

  /// The complete pattern with these options.
  public func pattern(options: Options = Options()) -> Pattern {
    let origin = StepOrigin(.cadence(self), at: SourceLocation(file: "builtin", line: 1, column: 1))
    var builder = PatternBuilder(merges: true)
    build(into: &builder, options: options, origin: origin)
    // A cadence always has a non-empty on-period, so building cannot fail.
    return (try? builder.build(repeatCount: options.repeatCount).pattern) ?? Pattern(steps: [])
  }

  /// Appends one cycle to `builder`.
  func build(into builder: inout PatternBuilder, options: Options, origin: StepOrigin) {
    for (index, length) in intervalsMs.enumerated() {
      if index % 2 == 0 {
        for slice in onPeriod(lengthMs: length, options: options) {
          builder.add(
            ms: slice.ms, hz: slice.hz, volume: options.volume, motor: options.motor, leds: options.leds,
            origin: origin)
        }
      } else {
        builder.add(ms: length, origin: origin)
      }
    }
  }
}
