import CallAlertEngine
import CallAlertPatterns
import CallAlertProtocol

/// Turns the engine's pattern references into what a board can play: a slot of its table, or a pattern
/// sent inline. A name is looked up in the board's table (when the slot names are known), then among
/// the built-in patterns; anything unknown falls back to the built-in ring, so a call always rings.
struct PatternResolver: Sendable {
  /// The pattern played when nothing else can be: the UK double ring, looping until the cap.
  static let fallback: Pattern =
    BuiltInPatterns.named("UK")?.pattern
    ?? Pattern(
      steps: [
        PatternStep(durationMs: 400, buzzerHz: 400, buzzerVolume: 200, motor: 200, leds: 1),
        PatternStep(durationMs: 200),
        PatternStep(durationMs: 400, buzzerHz: 450, buzzerVolume: 200, motor: 200, leds: 1),
        PatternStep(durationMs: 2_000),
      ], repeatCount: Pattern.repeatForever)

  /// Slot names of the board's installed table, by name (lower-cased).
  var slotNames: [String: UInt8] = [:]

  /// The source for `reference`.
  func source(for reference: PatternReference) -> PatternSource {
    switch reference {
    case .slot(let slot): return .slot(slot)
    case .inline(let pattern): return .inline(pattern)
    case .named(let name):
      if let slot = slotNames[name.lowercased()] { return .slot(slot) }
      if let builtIn = BuiltInPatterns.named(name)?.pattern { return .inline(Self.looping(builtIn)) }
      return .inline(Self.fallback)
    }
  }

  /// A ring repeats until something stops it, as a phone's does: a built-in that plays once is looped.
  static func looping(_ pattern: Pattern) -> Pattern {
    var looped = pattern
    if looped.repeatCount != Pattern.repeatForever {
      looped.repeatCount = Pattern.repeatForever
      looped.loopStart = 0
    }
    return looped
  }
}
