import CallAlertEngine
import CallAlertText
import CallAlertValues
import Testing

/// Pattern names in a config and the `buzzer_only` rule option.
@Suite struct ConfigPatternNameTests {
  static let text = """
    patterns:
      default: ofice
      rules:
        - levels: [critical]
          pattern: 3
        - callers: ["+4930123"]
          pattern: family
          buzzer_only: true
    """

  /// Every name is kept with its place; slot numbers are not names.
  @Test func namesAreRecordedWithTheirPlace() throws {
    let config = try parseConfig(Self.text)
    #expect(
      config.patternNameUses == [
        PatternNameUse(name: "ofice", location: "/etc/callalert/config.yaml:2:12", field: "patterns.default"),
        PatternNameUse(
          name: "family", location: "/etc/callalert/config.yaml:7:16", field: "patterns.rules[1].pattern"),
      ])
  }

  /// A name no known pattern has is an error at its place, with the closest known name; case does not matter.
  @Test func unknownNamesAreErrorsWithASuggestion() throws {
    let config = try parseConfig(Self.text)
    let errors = config.unknownPatternNames(known: ["office", "Family", "UK"], from: "office.yaml")
    #expect(
      errors.map(\.description) == [
        "/etc/callalert/config.yaml:2:12: patterns.default: unknown pattern 'ofice'; did you mean 'office'?; "
          + "patterns are named in office.yaml; or give a slot number"
      ])
    #expect(config.unknownPatternNames(known: ["ofice", "family"], from: "x").isEmpty)
  }

  @Test func buzzerOnlyIsARuleOption() throws {
    let config = try parseConfig(Self.text)
    #expect(config.engine.patternRules.map(\.buzzerOnly) == [nil, true])
    // A rule with only `buzzer_only` changes something, so it is valid.
    let only = try parseConfig("patterns:\n  rules:\n    - buzzer_only: true\n")
    #expect(only.engine.patternRules == [PatternRule(buzzerOnly: true)])
  }

  @Test func buzzerOnlyMustBeABoolean() {
    let errors = configErrors("patterns:\n  rules:\n    - buzzer_only: loud\n")
    #expect(errors.map(\.location) == ["/etc/callalert/config.yaml:3:20"])
    #expect(errors.first?.field == "patterns.rules[0].buzzer_only")
  }
}
