import CallAlertProtocol
internal import Yams

/// The generated sources: national cadences, RTTTL tunes and vibration waveforms.
extension PatternFileParser {
  /// The options every generated source shares.
  private struct SharedOptions {
    var volume: UInt8 = 255
    var motor: UInt8 = 0
    var leds: UInt8 = 0
    var repeatCount: UInt8? = nil
    var motorNode: Node? = nil
    var ledNode: Node? = nil
  }

  /// Reads `volume`, `motor`, `led`/`leds` and `repeat`; nil after an error.
  private mutating func shared(_ entries: [MappingEntry], _ prefix: String) -> SharedOptions? {
    var options = SharedOptions()
    var valid = true
    for entry in entries {
      switch entry.key {
      case "volume":
        if let value = level(entry.value, "volume", prefix) { options.volume = value } else { valid = false }
      case "motor":
        options.motorNode = entry.value
        if let value = level(entry.value, "motor", prefix) { options.motor = value } else { valid = false }
      case "led", "leds":
        options.ledNode = entry.value
        if let value = leds(entry.value, entry.key, prefix) { options.leds = value } else { valid = false }
      case "repeat":
        if let value = repeatCount(entry.value, prefix) { options.repeatCount = value } else { valid = false }
      default: break
      }
    }
    return valid ? options : nil
  }

  /// `cadence: US` with `volume`, `motor`, `led`, `repeat` (default forever), `slice_ms`, `dual_tone`,
  /// `modulation`.
  mutating func cadence(
    _ entries: [MappingEntry], _ node: Node, _ prefix: String, common: [String]
  ) -> (Pattern, [StepOrigin], PatternDefinition.Source)? {
    let keys = ["cadence", "volume", "motor", "led", "leds", "repeat", "slice_ms", "dual_tone", "modulation"]
    checkKeys(entries, allowed: common + keys, prefix)
    let shared = shared(entries, prefix)
    var options = RingCadence.Options()
    var valid = shared != nil
    for entry in entries {
      switch entry.key {
      case "slice_ms":
        if let value = integer(entry.value, "slice_ms", in: 1...1_000, prefix) {
          options.sliceMs = value
        } else {
          valid = false
        }
      case "dual_tone":
        if let value = choice(entry.value, "dual_tone", prefix, as: RingCadence.DualTone.self) {
          options.dualTone = value
        } else {
          valid = false
        }
      case "modulation":
        if let value = choice(entry.value, "modulation", prefix, as: RingCadence.Modulation.self) {
          options.modulation = value
        } else {
          valid = false
        }
      default: break
      }
    }
    guard let code = text(node, "cadence", prefix) else { return nil }
    guard let cadence = RingCadence(code: code.trimming(" \t")) else {
      let codes = RingCadence.allCases.map(\.rawValue).joined(separator: ", ")
      error(node, "\(prefix)unknown cadence '\(code)'; use one of \(codes)")
      return nil
    }
    guard valid, let shared else { return nil }
    options.volume = shared.volume
    // A cadence vibrates with its ring unless the file says `motor:` (e.g. `motor: 0` for a buzzer alone).
    if shared.motorNode != nil { options.motor = shared.motor }
    options.leds = shared.leds
    options.repeatCount = shared.repeatCount ?? Pattern.repeatForever
    let origin = StepOrigin(
      .cadence(cadence), at: source.location(of: node), frequencyLocation: source.location(of: node),
      motorLocation: shared.motorNode.map(source.location(of:)), ledLocation: shared.ledNode.map(source.location(of:)))
    var builder = PatternBuilder(merges: true)
    cadence.build(into: &builder, options: options, origin: origin)
    guard let built = finish(builder, repeatCount: options.repeatCount, at: node, prefix) else { return nil }
    return (built.pattern, built.origins, .cadence(cadence))
  }

  /// `rtttl: "name:d=4,o=5,b=120:notes"` with `volume`, `motor` (during notes), `led`, `repeat`
  /// (default 0), `octave_offset` and `gap_percent`. Problems inside the string are reported at their
  /// column in the file.
  mutating func rtttl(
    _ entries: [MappingEntry], _ node: Node, _ prefix: String, common: [String]
  ) -> (Pattern, [StepOrigin], PatternDefinition.Source)? {
    let keys = ["rtttl", "volume", "motor", "led", "leds", "repeat", "octave_offset", "gap_percent"]
    checkKeys(entries, allowed: common + keys, prefix)
    let shared = shared(entries, prefix)
    var octaveOffset = 0
    var gapPercent = 10
    var valid = shared != nil
    for entry in entries {
      switch entry.key {
      case "octave_offset":
        let hint = "-3 to 3 (-1 when the tune's a5 is 440 Hz)"
        if let value = integer(entry.value, "octave_offset", in: -3...3, prefix, hint: hint) {
          octaveOffset = value
        } else {
          valid = false
        }
      case "gap_percent":
        if let value = integer(entry.value, "gap_percent", in: 0...50, prefix) {
          gapPercent = value
        } else {
          valid = false
        }
      default: break
      }
    }
    guard let string = text(node, "rtttl", prefix) else { return nil }
    let locator = source.locator(for: node)
    let tune: RTTTLTune
    do {
      tune = try RTTTLTune.parse(string)
    } catch {
      for problem in error.problems {
        diagnostics.append(
          Diagnostic(
            problem.isError ? .error : .warning, at: locator.location(at: problem.offset),
            "\(prefix)rtttl: \(problem.message)"))
      }
      return nil
    }
    for problem in tune.warnings {
      diagnostics.append(.warning(at: locator.location(at: problem.offset), "\(prefix)rtttl: \(problem.message)"))
    }
    guard valid, let shared else { return nil }
    var builder = PatternBuilder(merges: true)
    for (index, timed) in tune.schedule(gapPercent: gapPercent).enumerated() {
      let origin = StepOrigin(
        .note(index: index, text: timed.note.text), at: locator.location(at: timed.note.offset),
        motorLocation: shared.motorNode.map(source.location(of:)), ledLocation: shared.ledNode.map(source.location(of:))
      )
      let hz = timed.note.hz(octaveOffset: octaveOffset) ?? 0
      builder.add(
        ms: timed.soundMs, hz: hz, volume: shared.volume, motor: shared.motor, leds: shared.leds, origin: origin)
      builder.add(ms: timed.durationMs - timed.soundMs, origin: origin)
    }
    guard let built = finish(builder, repeatCount: shared.repeatCount ?? 0, at: node, prefix) else { return nil }
    return (built.pattern, built.origins, .rtttl(tuneName: tune.name))
  }

  /// `vibration: android_pulse`, or `vibration: { timings: [...], amplitudes: [...], repeat: index }`
  /// with Android's semantics; `led` lights while the motor runs; the pattern's own `repeat:` (a count)
  /// overrides the default (forever for a repeating waveform, once otherwise).
  mutating func vibration(
    _ entries: [MappingEntry], _ node: Node, _ prefix: String, common: [String]
  ) -> (Pattern, [StepOrigin], PatternDefinition.Source)? {
    checkKeys(entries, allowed: common + ["vibration", "led", "leds", "repeat"], prefix)
    let shared = shared(entries, prefix)
    let waveform: VibrationWaveform
    var builtIn: String? = nil
    var timingNodes: [Node] = []
    var amplitudeNodes: [Node] = []
    var listNodes: (timings: Node?, amplitudes: Node?, repeat: Node?) = (nil, nil, nil)
    if node.scalar != nil {
      guard let name = text(node, "vibration", prefix) else { return nil }
      guard let found = VibrationWaveform.builtIn(named: name.trimming(" \t")) else {
        let names = VibrationWaveform.builtIns.map(\.name).joined(separator: ", ")
        error(node, "\(prefix)unknown vibration '\(name)'; use \(names), or a mapping with 'timings:'")
        return nil
      }
      waveform = found
      builtIn = name.trimming(" \t").lowercased()
    } else {
      let waveformPrefix = "\(prefix)vibration: "
      guard let fields = mapping(node, "vibration", prefix) else { return nil }
      checkKeys(fields, allowed: ["timings", "amplitudes", "repeat"], waveformPrefix)
      func field(_ key: String) -> Node? { fields.first { $0.key == key }?.value }
      guard let timingsNode = field("timings") else {
        error(node, "\(waveformPrefix)has no 'timings:'; add durations in ms, e.g. 'timings: [0, 250, 250, 250]'")
        return nil
      }
      listNodes = (timingsNode, field("amplitudes"), field("repeat"))
      var valid = true
      func integers(_ list: Node, _ what: String, in range: ClosedRange<Int>, hint: String) -> [Int]? {
        guard let sequence = list.sequence else {
          error(list, "\(waveformPrefix)'\(what):' must be a list such as [0, 250, 250, 250]")
          return nil
        }
        var values: [Int] = []
        for item in sequence {
          if what == "amplitudes", item.scalar?.string.lowercased() == "default" {
            values.append(VibrationWaveform.defaultAmplitude)
          } else if let value = integer(item, String(what.dropLast()), in: range, waveformPrefix, hint: hint) {
            values.append(value)
          } else {
            valid = false
          }
        }
        return values
      }
      let timings = integers(timingsNode, "timings", in: 0...10_000_000, hint: "a duration in ms, 0 or more")
      timingNodes = timingsNode.sequence.map(Array.init) ?? []
      let amplitudes = listNodes.amplitudes.flatMap {
        integers($0, "amplitudes", in: -1...255, hint: "0-255, or -1 (default) for full intensity")
      }
      amplitudeNodes = listNodes.amplitudes?.sequence.map(Array.init) ?? []
      let repeatIndex =
        listNodes.repeat.map {
          integer($0, "repeat", in: -1...Int(Int32.max), waveformPrefix, hint: "-1 (no repeat) or a timing index")
        } ?? -1
      guard valid, let timings, listNodes.amplitudes == nil || amplitudes != nil, let repeatIndex else { return nil }
      waveform = VibrationWaveform(timings: timings, amplitudes: amplitudes, repeatIndex: repeatIndex)
      var problems = false
      for problem in waveform.problems() {
        problems = true
        let at: Node
        switch problem.field {
        case .timing(let index): at = index.map { timingNodes[$0] } ?? timingsNode
        case .amplitude(let index): at = index.map { amplitudeNodes[$0] } ?? listNodes.amplitudes ?? node
        case .repeatIndex: at = listNodes.repeat ?? node
        }
        error(at, "\(waveformPrefix)\(problem.message)")
      }
      if problems { return nil }
    }
    guard let shared else { return nil }
    let fallback = source.location(of: node)
    var builder = PatternBuilder(merges: true)
    waveform.build(into: &builder, leds: shared.leds) { index in
      StepOrigin(
        .timing(index: index), at: index < timingNodes.count ? source.location(of: timingNodes[index]) : fallback,
        ledLocation: shared.ledNode.map(source.location(of:)))
    }
    let repeatCount = waveform.effectiveRepeatCount(shared.repeatCount)
    guard let built = finish(builder, repeatCount: repeatCount, at: node, prefix, loopNode: listNodes.repeat) else {
      return nil
    }
    return (built.pattern, built.origins, .vibration(builtIn: builtIn))
  }
}
