import CallAlertProtocol

/// Checks compiled patterns against a board's ``Capabilities``.
///
/// Errors are what the board refuses (too many slots or steps, a frequency out of range, a table too
/// large: TABLE_COMMIT would fail with `bad_table` or `too_large`) and what its motor protection would
/// certainly cut within a single alert (a run longer than `motor_max_on_ms`, or enough on-time in one
/// alert to reach the duty limit). Warnings are what plays, but not as written: a pattern longer than
/// the 30 s cap, an average duty that would hold the motor off over back-to-back alerts, LEDs or motors
/// the board does not have.
struct PatternValidator {
  let capabilities: Capabilities

  func validate(_ file: PatternFile) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let slots = Int(capabilities.patternSlots)
    var beyond = false
    for definition in file.patterns {
      diagnostics += validate(definition)
      if definition.slot >= slots {
        beyond = true
        diagnostics.append(
          .error(
            at: definition.slotLocation,
            "pattern '\(definition.name)': slot \(definition.slot) is beyond the board's \(slots) slots; "
              + "use 0-\(slots - 1)"
          ))
      }
    }
    if file.slotCount > slots && !beyond {
      diagnostics.append(
        .error(
          at: file.location,
          "the table has \(file.slotCount) slots but the board holds \(slots); lower 'slots:' to \(slots) or less"))
    }
    let size = file.compileBytes().count
    if size > Int(capabilities.tableCapacity) {
      let largest = file.patterns.max { $0.pattern.encodedSize < $1.pattern.encodedSize }
      let hint = largest.map { "; the largest is '\($0.name)' (\($0.pattern.encodedSize) bytes)" } ?? ""
      diagnostics.append(
        .error(
          at: file.location,
          "the table is \(size) bytes, above the board's capacity of \(capabilities.tableCapacity) bytes; "
            + "remove or shorten patterns\(hint)"
        ))
    }
    return diagnostics
  }

  func validate(_ definition: PatternDefinition) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let prefix = "pattern '\(definition.name)': "
    let pattern = definition.pattern
    if pattern.steps.count > Int(capabilities.maxSteps) {
      diagnostics.append(
        .error(
          at: definition.location,
          "\(prefix)it compiles to \(pattern.steps.count) steps but the board plays at most \(capabilities.maxSteps); "
            + stepAdvice(definition.source)
        ))
    }
    diagnostics += frequencies(definition, prefix)
    diagnostics += channels(definition, prefix)
    diagnostics += motor(definition, prefix)
    if let natural = pattern.totalDurationMs, natural > UInt32(absoluteCapMs) {
      let lost = natural - UInt32(absoluteCapMs)
      diagnostics.append(
        .warning(
          at: definition.location,
          "\(prefix)it lasts \(natural) ms but the board ends every alert at \(absoluteCapMs) ms, "
            + "so the last \(lost) ms never play; shorten it or lower 'repeat:'"
        ))
    }
    return diagnostics
  }

  private func stepAdvice(_ source: PatternDefinition.Source) -> String {
    switch source {
    case .steps: "remove steps, or merge steps that sound the same"
    case .cadence: "raise 'slice_ms:' or use 'dual_tone: mean'"
    case .rtttl: "shorten the tune, or set 'gap_percent: 0' (one step fewer per note)"
    case .vibration: "use fewer timings"
    }
  }

  private func frequencies(_ definition: PatternDefinition, _ prefix: String) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let low = capabilities.buzzerMinHz
    let high = capabilities.buzzerMaxHz
    for (index, step) in definition.pattern.steps.enumerated() where step.buzzerHz != 0 {
      guard step.buzzerHz < low || step.buzzerHz > high else { continue }
      let origin = definition.origin(ofStep: index)
      let where_ = origin.frequencyLocation ?? origin.location
      let side = step.buzzerHz < low ? "below the board's \(low) Hz minimum" : "above the board's \(high) Hz maximum"
      let message: String
      switch origin.kind {
      case .step:
        message = "hz \(step.buzzerHz) is \(side); use \(low)-\(high) or 0 for silence"
      case .note:
        let change = step.buzzerHz < low ? "raise the note or 'octave_offset:'" : "lower the note or 'octave_offset:'"
        message = "\(step.buzzerHz) Hz is \(side); \(change)"
      case .cadence:
        message = "\(step.buzzerHz) Hz is \(side); this board cannot play the cadence's tone"
      case .timing:
        message = "\(step.buzzerHz) Hz is \(side)"
      }
      diagnostics.append(.error(at: where_, "\(prefix)\(origin.label): \(message)"))
    }
    return diagnostics
  }

  private func channels(_ definition: PatternDefinition, _ prefix: String) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let steps = definition.pattern.steps
    if capabilities.buzzerChannels == 0, steps.contains(where: \.isAudible) {
      diagnostics.append(
        .warning(at: definition.location, "\(prefix)the board has no buzzer, so its tones will not sound"))
    }
    if capabilities.motorChannels == 0, steps.contains(where: { $0.motor != 0 }) {
      diagnostics.append(
        .warning(at: definition.location, "\(prefix)the board has no vibration motor, so the motor part will not run"))
    }
    let ledCount = Int(capabilities.leds)
    for (index, step) in steps.enumerated() {
      let missing = (0..<8).filter { step.leds & (1 << $0) != 0 && $0 >= ledCount }
      guard let first = missing.first else { continue }
      let origin = definition.origin(ofStep: index)
      let has = ledCount == 0 ? "has no LEDs" : "has \(ledCount) (0-\(ledCount - 1))"
      diagnostics.append(
        .warning(
          at: origin.ledLocation ?? origin.location,
          "\(prefix)\(origin.label): LED \(first) does not exist on this board, which \(has); the board ignores it"))
    }
    return diagnostics
  }

  private func motor(_ definition: PatternDefinition, _ prefix: String) -> [Diagnostic] {
    let pattern = definition.pattern
    guard capabilities.motorChannels > 0, pattern.steps.contains(where: { $0.motor != 0 }) else { return [] }
    var diagnostics: [Diagnostic] = []
    let timeline = PatternTimeline(pattern)
    // The longest run within one alert, measured on the unrolled timeline so runs across loop passes count.
    var longest = (ms: 0, from: 0)
    var run = (ms: 0, from: 0)
    for segment in timeline.segments {
      if segment.step.motor != 0 {
        if run.ms == 0 { run.from = segment.stepIndex }
        run.ms += segment.durationMs
        if run.ms > longest.ms { longest = run }
      } else {
        run = (0, 0)
      }
    }
    let maxOn = Int(capabilities.motorMaxOnMs)
    // The board's test is `on-time >= motor_max_on_ms`, so a run of exactly the limit is already cut.
    if longest.ms >= maxOn {
      let origin = definition.origin(ofStep: longest.from)
      diagnostics.append(
        .error(
          at: origin.motorLocation ?? origin.location,
          "\(prefix)the motor runs \(longest.ms) ms without a break from \(origin.label); "
            + "the board stops the motor at \(maxOn) ms for a 1000 ms rest; "
            + "keep every run shorter than \(maxOn) ms with pauses"
        ))
    }
    let window = Int(capabilities.motorDutyWindowMs)
    let percent = Int(capabilities.motorMaxDutyPercent)
    // The board's test: on_ms × 100 >= percent × window_ms, over a sliding window.
    let onMs = timeline.maxMotorOnMs(inWindow: window)
    if window > 0 && onMs * 100 >= percent * window {
      diagnostics.append(
        .error(
          at: definition.location,
          "\(prefix)the motor runs \(onMs) ms within \(window) ms of one alert, "
            + "reaching the board's limit of \(percent) % of \(window) ms; "
            + "the board will hold it off mid-alert; add pauses"
        ))
      return diagnostics
    }
    // Steady state: the loop when the pattern repeats, else the whole pattern played back to back.
    let steps = pattern.repeatCount > 0 ? Array(pattern.steps[Int(pattern.loopStart)...]) : pattern.steps
    let length = steps.reduce(0) { $0 + Int($1.durationMs) }
    let on = steps.reduce(0) { $0 + ($1.motor != 0 ? Int($1.durationMs) : 0) }
    if length > 0 && on * 100 > percent * length {
      let part = pattern.repeatCount > 0 ? "of each loop" : "of the pattern"
      diagnostics.append(
        .warning(
          at: definition.location,
          "\(prefix)the motor is on \(on * 100 / length) % \(part), "
            + "above the board's \(percent) % average over \(window) ms; "
            + "back-to-back alerts will make the board hold the motor off; lengthen the pauses"
        ))
    }
    return diagnostics
  }
}
