import CallAlertProtocol
import Testing

@testable import CallAlertEngine

/// Which channels a PLAY keeps still, and the fallback report.
@Suite struct AlertEngineRingAndVibrateTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var buzzerOnly: Bool?
    var silent: Bool
    var vibrateOnly: Bool
    var options: PlayOptions
    var testDescription: String {
      "buzzer_only \(buzzerOnly.map(String.init) ?? "unset"), silent \(silent), vibrate_only \(vibrateOnly)"
    }
  }

  /// Buzzer and motor by default; `buzzer_only` mutes the motor; silent mode and a bed shaker mute the buzzer
  /// whatever the rule says (a bed shaker shakes for every call).
  @Test(arguments: [
    Case(buzzerOnly: nil, silent: false, vibrateOnly: false, options: []),
    Case(buzzerOnly: false, silent: false, vibrateOnly: false, options: []),
    Case(buzzerOnly: true, silent: false, vibrateOnly: false, options: [.muteMotor]),
    Case(buzzerOnly: true, silent: true, vibrateOnly: false, options: [.muteBuzzer]),
    Case(buzzerOnly: true, silent: false, vibrateOnly: true, options: [.muteBuzzer]),
  ])
  func playOptions(test: Case) {
    var engine = makeEngine(
      configuration(
        rules: [PatternRule(buzzerOnly: test.buzzerOnly)],
        doNotDisturb: DoNotDisturbConfiguration(timeZone: utc, silent: test.silent),
        vibrateOnly: test.vibrateOnly ? ["board"] : []))
    #expect(engine.handle(.call(call("c1")), at: t(0)).plays.map(\.options) == [test.options])
  }

  /// The first matching rule that sets `buzzer_only` decides; a rule for other callers does not.
  @Test func theFirstMatchingRuleWithBuzzerOnlyDecides() {
    var engine = makeEngine(
      configuration(rules: [
        PatternRule(callers: ["+1 415 555 0100"], buzzerOnly: false), PatternRule(pattern: .named("US")),
        PatternRule(buzzerOnly: true),
      ]))
    #expect(engine.handle(.call(call("other", from: "+14155550199")), at: t(0)).plays.map(\.options) == [[.muteMotor]])
    #expect(engine.handle(.call(call("vip", from: "+14155550100")), at: t(10)).plays.map(\.options) == [[]])
  }

  /// A board's fallback report becomes an event naming the call, the board, what was asked and what plays;
  /// a report for a token no longer playing changes nothing.
  @Test func aFallbackReportNamesTheCall() {
    var engine = makeEngine(configuration(rules: [PatternRule(pattern: .named("office"))]))
    let token = engine.handle(.call(call("c1")), at: t(0)).plays[0].token
    #expect(
      engine.handle(.patternFallback(board: "board", token: token, played: "UK", reason: "no slot"), at: t(5)) == [
        .event(
          .patternFallback(callID: "c1", board: "board", requested: .named("office"), played: "UK", reason: "no slot"))
      ])
    #expect(
      engine.handle(.patternFallback(board: "board", token: token + 7, played: "UK", reason: "x"), at: t(6)).isEmpty)
    _ = engine.handle(.hangup(callID: "c1"), at: t(7))
    #expect(engine.handle(.patternFallback(board: "board", token: token, played: "UK", reason: "x"), at: t(8)).isEmpty)
  }
}
