import CallAlertProtocol

/// The capability limits a pattern must respect on this board, checked for inline patterns at PLAY and
/// for every slot of a table at TABLE_COMMIT and at boot, so that a stored slot always plays.
///
/// LED bits for LEDs the board lacks are not refused but ignored: a table is written once and shared
/// by boards with one or two LEDs, and a missing LED harms nobody. The motor byte drives every motor
/// channel, so it has no such bits.
public struct PatternLimits: Equatable, Sendable {
  /// The most steps in one pattern.
  public var maxSteps: UInt16
  /// The lowest buzzer frequency (a step's `buzzer_hz` is 0 or within the range).
  public var buzzerMinHz: UInt16
  /// The highest buzzer frequency.
  public var buzzerMaxHz: UInt16
  /// The most slots a table may have.
  public var patternSlots: UInt8

  /// Creates limits.
  public init(maxSteps: UInt16, buzzerMinHz: UInt16, buzzerMaxHz: UInt16, patternSlots: UInt8) {
    self.maxSteps = maxSteps
    self.buzzerMinHz = buzzerMinHz
    self.buzzerMaxHz = buzzerMaxHz
    self.patternSlots = patternSlots
  }

  /// The offset, within the pattern's encoding, of the first field that breaks a limit; nil when the
  /// pattern fits. Too many steps points at `step_count`, a bad frequency at that step's `buzzer_hz`.
  public func problem(in pattern: Pattern) -> Int? {
    if pattern.steps.count > Int(maxSteps) { return 4 }
    for (index, step) in pattern.steps.enumerated() where step.buzzerHz != 0 {
      if step.buzzerHz < buzzerMinHz || step.buzzerHz > buzzerMaxHz {
        return Pattern.headerSize + index * PatternStep.size + 2
      }
    }
    return nil
  }
}
