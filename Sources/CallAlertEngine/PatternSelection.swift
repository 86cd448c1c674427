#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The pattern and the boards a call rings with, chosen once when it starts ringing.
struct PatternSelection: Equatable, Sendable {
  /// The pattern.
  var pattern: PatternReference
  /// The boards, by name, in the configuration's order.
  var boards: [String]
  /// Whether the buzzer plays alone: the first matching rule that says so decides; by default the motor runs too.
  var buzzerOnly: Bool

  /// Chooses for `call`, whose caller is `number` in E.164 (nil when withheld).
  ///
  /// The call's own boards (a phone-system source's filter chose them), else the first rule that matches names
  /// the boards (none named: every board). The pattern comes from the first
  /// matching rule that has one, then the call's own hint, then the configuration's default, so a rule may
  /// route callers to boards and leave the pattern to a later, broader rule.
  init(for call: IncomingCall, number: String?, configuration: EngineConfiguration) {
    let matching = configuration.patternRules.filter {
      Self.matches($0, level: call.level, number: number, region: configuration.defaultRegion)
    }
    let hint = call.patternHint.map(Self.trimmingSpaces) ?? ""
    pattern =
      matching.lazy.compactMap(\.pattern).first
      ?? (hint.isEmpty ? configuration.defaultPattern : .named(hint))

    buzzerOnly = matching.lazy.compactMap(\.buzzerOnly).first ?? false

    let configured = configuration.boards.map(\.name)
    let named = call.boards ?? matching.first?.boards ?? []
    let known = configured.filter { named.contains($0) }
    // A rule naming only boards that are not configured would ring nowhere and lose the call; ringing every
    // board is the safer reading of a configuration mistake.
    boards = known.isEmpty ? configured : known
  }

  /// `text` without the tabs, space separators and zero-width spaces at either end, as
  /// `trimmingCharacters(in: .whitespaces)` gave it (the engine imports no text module, and full Foundation
  /// only for this would bring ICU).
  private static func trimmingSpaces(_ text: String) -> String {
    let isSpace = { (scalar: Unicode.Scalar) in
      scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(Substring(scalars[first...last]))
  }

  private static func matches(_ rule: PatternRule, level: InterruptionLevel, number: String?, region: String) -> Bool {
    guard rule.levels.isEmpty || rule.levels.contains(level) else { return false }
    guard !rule.callers.isEmpty else { return true }
    guard let number else { return false }
    return rule.callers.contains { PhoneNumber.e164($0, defaultRegion: region) == number }
  }
}
