import CallAlertProtocol

/// Patterns available by name without a file, so `callalert patterns render US` works: the national
/// ring cadences (`US`, `UK`, `DE`, `FR`, `JP`, `AU`, `ES`, `IT`, `IN`, with default options) and the
/// Android vibrations (`android_default`, `android_simple`, `android_pulse`).
public enum BuiltInPatterns {
  /// The names, cadences first.
  public static var names: [String] {
    RingCadence.allCases.map(\.rawValue) + VibrationWaveform.builtIns.map(\.name)
  }

  /// Every built-in pattern, in ``names`` order, in slots 0, 1, 2 …
  public static var all: [PatternDefinition] {
    names.enumerated().compactMap { named($0.element, slot: $0.offset) }
  }

  /// A built-in pattern by name (any case), in `slot`.
  public static func named(_ name: String, slot: Int = 0) -> PatternDefinition? {
    let location = SourceLocation(file: "builtin:\(name)", line: 1, column: 1)
    if let cadence = RingCadence(code: name) {
      let pattern = cadence.pattern()
      let origin = StepOrigin(.cadence(cadence), at: location, frequencyLocation: location)
      return PatternDefinition(
        name: cadence.rawValue, slot: slot, pattern: pattern, source: .cadence(cadence), location: location,
        origins: Array(repeating: origin, count: pattern.steps.count))
    }
    guard let waveform = VibrationWaveform.builtIn(named: name), let pattern = waveform.pattern() else { return nil }
    let key = name.lowercased()
    var builder = PatternBuilder(merges: true)
    waveform.build(into: &builder, leds: 0) { StepOrigin(.timing(index: $0), at: location) }
    let origins = (try? builder.build(repeatCount: pattern.repeatCount).origins) ?? []
    return PatternDefinition(
      name: key, slot: slot, pattern: pattern, source: .vibration(builtIn: key), location: location, origins: origins)
  }

  /// A file holding every built-in pattern (version 1), e.g. to flash them all for a demonstration.
  public static var file: PatternFile {
    let patterns = all
    return PatternFile(path: "builtin", version: 1, slotCount: patterns.count, patterns: patterns)
  }
}
