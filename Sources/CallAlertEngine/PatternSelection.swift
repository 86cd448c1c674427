import Foundation

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
    let hint = call.patternHint.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
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

  private static func matches(_ rule: PatternRule, level: InterruptionLevel, number: String?, region: String) -> Bool {
    guard rule.levels.isEmpty || rule.levels.contains(level) else { return false }
    guard !rule.callers.isEmpty else { return true }
    guard let number else { return false }
    return rule.callers.contains { PhoneNumber.e164($0, defaultRegion: region) == number }
  }
}
