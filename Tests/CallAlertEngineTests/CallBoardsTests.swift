import CallAlertProtocol
import Testing

@testable import CallAlertEngine

/// A call may name its boards (a phone-system source's filter chose them); they take the place of the
/// rules' boards, while the pattern still follows the rules, then the call's hint.
@Suite struct CallBoardsTests {
  static let configuration = EngineConfiguration(
    boards: [AlertBoard(name: "desk"), AlertBoard(name: "bed")],
    patternRules: [PatternRule(callers: ["+1 415 555 0100"], pattern: .named("vip"), boards: ["desk"])])

  @Test func theCallsOwnBoardsRingInsteadOfTheRules() {
    var engine = makeEngine(Self.configuration)
    let incoming = IncomingCall(id: "box:1", callerNumber: "+1 415 555 0100", patternHint: "family", boards: ["bed"])
    let effects = engine.handle(.call(incoming), at: t(0))
    #expect(effects.plays.map(\.board) == ["bed"])
    #expect(
      effects.events.first == .ringing(incoming, boards: ["bed"], pattern: .named("vip"), capMs: 30_000, silent: false))
  }

  @Test func withoutBoardsTheRulesChooseAndTheHintIsThePattern() {
    var engine = makeEngine(Self.configuration)
    let incoming = IncomingCall(id: "box:2", callerNumber: "+1 415 555 0199", patternHint: "family")
    let effects = engine.handle(.call(incoming), at: t(0))
    #expect(Set(effects.plays.map(\.board)) == ["desk", "bed"])
    #expect(effects.plays.first?.pattern == .named("family"))
  }
}
