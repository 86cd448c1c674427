import CallAlertProtocol

/// A pattern felt rather than heard: the motor plays the pattern's rhythm, for a bed shaker
/// (`vibrate_only`) and silent mode, where the buzzer is kept silent.
///
/// Each step keeps its length; the motor runs at the step's own intensity when it has one, else at
/// ``intensity`` wherever the buzzer would sound, and stands still elsewhere. The buzzer is silent in every
/// step; LEDs are kept. A gap shorter than ``bridgedGapMs`` between two running steps (a gated tone's
/// flutter, the articulation between notes) keeps the motor running: a motor takes tens of milliseconds
/// to spin up, so it cannot follow such gaps and would only buzz weakly. Neighbouring steps that end up the
/// same are merged (never across the loop's start), so the result has at most as many steps as the
/// pattern: whatever limit on steps the pattern respected, its rhythm does too. The motor's own limits
/// (continuous on-time, average duty) are the board's to enforce, as for every pattern.
public enum MotorRhythm {
  /// The motor's intensity for steps where only the buzzer sounded: full, as a phone vibrates.
  public static let intensity: UInt8 = RingCadence.Options.defaultMotor
  /// Silent gaps shorter than this, between two running steps, keep the motor running.
  public static let bridgedGapMs: UInt16 = 60

  /// The motor's rhythm of `pattern`; nil when the motor would never run (no step sounds or vibrates).
  public static func of(_ pattern: Pattern) -> Pattern? {
    var motor = pattern.steps.map { step -> UInt8 in
      step.motor != 0 ? step.motor : (step.isAudible ? intensity : 0)
    }
    guard motor.contains(where: { $0 != 0 }) else { return nil }
    // Bridge short gaps between running steps (a run of silent steps counts as one gap).
    var index = 0
    while index < motor.count {
      guard motor[index] == 0 else {
        index += 1
        continue
      }
      var end = index
      var gapMs = 0
      while end < motor.count, motor[end] == 0 {
        gapMs += Int(pattern.steps[end].durationMs)
        end += 1
      }
      if index > 0, end < motor.count, gapMs < Int(bridgedGapMs) {
        for bridged in index..<end { motor[bridged] = motor[index - 1] }
      }
      index = end
    }
    var steps: [PatternStep] = []
    var loopStart: UInt16 = 0
    for (offset, step) in pattern.steps.enumerated() {
      let felt = PatternStep(durationMs: step.durationMs, motor: motor[offset], leds: step.leds)
      let startsLoop = offset == Int(pattern.loopStart)
      if !startsLoop, let last = steps.last, last.motor == felt.motor, last.leds == felt.leds,
        Int(last.durationMs) + Int(felt.durationMs) <= Int(UInt16.max)
      {
        steps[steps.count - 1].durationMs += felt.durationMs
        continue
      }
      if startsLoop { loopStart = UInt16(steps.count) }
      steps.append(felt)
    }
    return Pattern(steps: steps, repeatCount: pattern.repeatCount, loopStart: loopStart)
  }
}
