import CallAlertProtocol

/// Where one compiled step came from, so that a problem found in the compiled pattern points back at the
/// text a person wrote: a step's `hz:` field, an RTTTL note inside its string, a cadence's name.
public struct StepOrigin: Equatable, Hashable, Sendable {
  /// What kind of source text produced the step.
  public enum Kind: Equatable, Hashable, Sendable {
    /// Explicit step number `index` (from 0, as `loop_from` counts) of a `steps:` list.
    case step(index: Int)
    /// RTTTL note number `index` (from 0), written as `text`.
    case note(index: Int, text: String)
    /// A national ring cadence.
    case cadence(RingCadence)
    /// Timing number `index` (from 0) of a vibration waveform.
    case timing(index: Int)
  }

  /// What produced the step.
  public var kind: Kind
  /// The source text as a whole (the step's list item, the note, the cadence's value).
  public var location: SourceLocation
  /// The text that sets the buzzer frequency, when it has its own place (a step's `hz:`).
  public var frequencyLocation: SourceLocation?
  /// The text that sets the motor, when it has its own place.
  public var motorLocation: SourceLocation?
  /// The text that sets the LEDs, when it has its own place.
  public var ledLocation: SourceLocation?

  /// Creates an origin.
  public init(
    _ kind: Kind, at location: SourceLocation, frequencyLocation: SourceLocation? = nil,
    motorLocation: SourceLocation? = nil, ledLocation: SourceLocation? = nil
  ) {
    self.kind = kind
    self.location = location
    self.frequencyLocation = frequencyLocation
    self.motorLocation = motorLocation
    self.ledLocation = ledLocation
  }

  /// How messages name the source: "step 3", "note 5 '8c#6'", "cadence US", "timing 2".
  public var label: String {
    switch kind {
    case .step(let index): "step \(index)"
    case .note(let index, let text): "note \(index) '\(text)'"
    case .cadence(let cadence): "cadence \(cadence.rawValue)"
    case .timing(let index): "timing \(index)"
    }
  }
}

/// One named pattern of a file (or a built-in one), compiled to the wire ``Pattern``, with its slot and
/// the places in the file its parts came from.
public struct PatternDefinition: Equatable, Sendable {
  /// What the pattern was written as.
  public enum Source: Equatable, Sendable {
    /// Explicit `steps:`.
    case steps
    /// `cadence:` with the national cadence.
    case cadence(RingCadence)
    /// `rtttl:` with the tune's own name (the part before the first colon).
    case rtttl(tuneName: String)
    /// `vibration:`, with the built-in waveform's name when it named one.
    case vibration(builtIn: String?)
  }

  /// The slot name, printable ASCII, at most 16 bytes.
  public var name: String
  /// The slot number, 0 to 63.
  public var slot: Int
  /// The compiled pattern.
  public var pattern: Pattern
  /// What it was written as.
  public var source: Source
  /// Where the pattern is declared (its name).
  public var location: SourceLocation
  /// Where its slot was chosen: the `slot:` value, or the declaration when assigned in order.
  public var slotLocation: SourceLocation
  /// One origin per step of ``pattern``.
  public var origins: [StepOrigin]

  /// Creates a definition; `origins` must have one entry per step.
  public init(
    name: String, slot: Int, pattern: Pattern, source: Source, location: SourceLocation,
    slotLocation: SourceLocation? = nil, origins: [StepOrigin]
  ) {
    self.name = name
    self.slot = slot
    self.pattern = pattern
    self.source = source
    self.location = location
    self.slotLocation = slotLocation ?? location
    self.origins = origins
  }

  /// Where step `index` came from; the declaration when ``origins`` does not cover it (a definition
  /// assembled by hand).
  public func origin(ofStep index: Int) -> StepOrigin {
    origins.indices.contains(index) ? origins[index] : StepOrigin(.step(index: index), at: location)
  }

  /// The table slot this definition compiles to.
  public var tableSlot: PatternTable.Slot {
    PatternTable.Slot(name: Array(name.utf8), pattern: pattern)
  }

  /// Checks the pattern against a board: frequencies, steps, LEDs, motor channels and limits, the cap.
  public func validate(against capabilities: Capabilities = .referenceBoard) -> [Diagnostic] {
    PatternValidator(capabilities: capabilities).validate(self).normalized()
  }

  /// A one-line account: "slot 0  office  81 steps  6000 ms loop, repeats until the cap".
  public var summary: String {
    let steps = "\(pattern.steps.count) step\(pattern.steps.count == 1 ? "" : "s")"
    let length: String
    switch pattern.repeatCount {
    case 0: length = "\(pattern.totalDurationMs ?? 0) ms"
    case Pattern.repeatForever: length = "\(pattern.loopDurationMs) ms loop, repeats until the cap"
    default: length = "\(pattern.totalDurationMs ?? 0) ms (loop repeats \(pattern.repeatCount)x)"
    }
    return "slot \(slot)  \(name)  \(steps)  \(length)"
  }
}

extension Capabilities {
  /// The reference board, for checking a file when no board is connected: one buzzer of 200-8 000 Hz,
  /// one motor, two LEDs, one button, 16 slots of up to 512 steps, a 31 744-byte table, 1 024-byte
  /// payloads, a window of 8, the motor limited to 15 000 ms of continuous running and 70 % average duty
  /// over 60 000 ms, and a 3 000 ms lease.
  public static let referenceBoard = Capabilities(
    buzzerChannels: 1, buzzerMinHz: 200, buzzerMaxHz: 8_000, motorChannels: 1, leds: 2, buttons: 1,
    patternSlots: 16, maxSteps: 512, maxPayload: 1_024, window: 8, tableCapacity: 31_744,
    motorMaxOnMs: 15_000, motorDutyWindowMs: 60_000, motorMaxDutyPercent: 70, leaseMs: 3_000)
}
