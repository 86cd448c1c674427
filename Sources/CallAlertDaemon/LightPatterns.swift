import CallAlertEngine
import CallAlertLights
import CallAlertPatterns
import CallAlertProtocol

/// The patterns a light plays: a light holds no table, so a name is looked up in the config's pattern file
/// (the table the serial boards get), then among the built-ins; a slot plays that slot of the pattern file,
/// else the default ring. What it finds is the rhythm the light plays.
struct LightPatterns: Sendable {
  private var resolver = PatternResolver()

  /// Patterns from `table` (the config's pattern file, compiled), else the built-ins.
  init(table: PatternTable?) {
    resolver.learn(table)
  }

  /// A pattern found, with the name its look goes by, and what played instead when it was not found.
  struct Found: Sendable {
    var pattern: Pattern
    var name: String?
    var fallback: PatternResolver.Fallback?
  }

  /// The pattern `reference` names.
  func find(_ reference: PatternReference) -> Found {
    switch reference {
    case .inline(let pattern):
      return Found(pattern: pattern, name: nil)
    case .slot(let slot):
      if let pattern = resolver.slotPatterns[slot] {
        return Found(pattern: PatternResolver.looping(pattern), name: slotName(slot))
      }
      // Slot 0 is the engine's default: a light without a pattern file rings the default ring, no fallback.
      return Found(pattern: PatternResolver.fallback, name: PatternResolver.fallbackName)
    case .named(let name):
      if let slot = resolver.slotNames[name.lowercased()], let pattern = resolver.slotPatterns[slot] {
        return Found(pattern: PatternResolver.looping(pattern), name: name)
      }
      if let builtIn = BuiltInPatterns.named(name)?.pattern {
        return Found(pattern: PatternResolver.looping(builtIn), name: name)
      }
      return Found(
        pattern: PatternResolver.fallback, name: PatternResolver.fallbackName,
        fallback: PatternResolver.Fallback(
          played: PatternResolver.fallbackName,
          reason: "no pattern named '\(name)' in the pattern file or among the built-ins"))
    }
  }

  private func slotName(_ slot: UInt8) -> String? {
    resolver.slotNames.first { $0.value == slot }?.key
  }
}
