import CallAlertProtocol
import Foundation
import Testing

@testable import CallAlertEngine

/// The status snapshot, reloading the configuration, and the pattern choice.
@Suite struct AlertEngineStatusTests {
  @Test func theSnapshotShowsWhatIsGoingOn() {
    var engine = makeEngine(configuration(boards: ["desk", "bed"]), connected: ["desk"])
    let missed = call("p1", level: .passive)
    _ = engine.handle(.call(missed), at: t(0))
    let ringing = call("c1", from: "(415) 555-0100", hint: "classic")
    _ = engine.handle(.call(ringing), at: t(1_000))
    _ = engine.handle(.setSilent(true), at: t(2_000))
    #expect(
      engine.snapshot(at: t(5_000))
        == EngineSnapshot(
          activeCalls: [
            .init(
              call: ringing, callerE164: "+14155550100", remainingMs: 26_000, boards: ["desk", "bed"],
              playingOn: ["desk"], pattern: .named("classic"), silent: false)
          ],
          missedCalls: [missed],
          doNotDisturb: .init(configuredMode: .off, override: nil, isActive: false, silent: true, silentOverride: true),
          boards: [
            .init(name: "desk", connected: true, callID: "c1", token: 1),
            .init(name: "bed", connected: false, callID: nil, token: nil),
          ],
          nextDeadlineMs: 31_000))
  }

  @Test func aReloadKeepsRingingCalls() {
    var engine = makeEngine(configuration(boards: ["desk", "bed"]))
    _ = engine.handle(.call(call("c1")), at: t(0))  // desk 1, bed 2
    // The bed is removed, a shed added; the cap is lowered (for the next call only).
    let reloaded = configuration(boards: ["desk", "shed"], capMs: 10_000)
    #expect(engine.reconfigure(reloaded, at: t(1_000)) == [.stop(board: "bed", token: 2)])
    #expect(engine.configuration == reloaded)
    let status = engine.snapshot(at: t(1_000))
    #expect(status.activeCalls.map(\.boards) == [["desk"]])
    #expect(status.activeCalls.map(\.remainingMs) == [29_000])
    #expect(status.boards.map(\.name) == ["desk", "shed"])
    #expect(status.boards.map(\.connected) == [true, false])
    #expect(engine.handle(.call(call("c2")), at: t(2_000)).plays.map(\.capMs) == [10_000])
  }

  @Test func aReloadShowsAChangedIndicatorAtOnce() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("p1", level: .passive)), at: t(0))
    var reloaded = configuration()
    reloaded.missedIndicator = IndicatorSetting(led: 0, mode: .on)
    #expect(engine.reconfigure(reloaded, at: t(1_000)) == [.indicator(board: "board", reloaded.missedIndicator)])
    #expect(engine.reconfigure(reloaded, at: t(2_000)).isEmpty)
  }

  @Test func aReloadKeepsTheOverrides() {
    var engine = makeEngine()
    _ = engine.handle(.setDoNotDisturb(.on), at: t(0))
    _ = engine.reconfigure(configuration(), at: t(1_000))
    #expect(engine.snapshot(at: t(1_000)).doNotDisturb.override == .on)
  }

  /// (rules, caller, level, hint, the pattern chosen).
  static let patterns: [([PatternRule], String?, InterruptionLevel, String?, PatternReference)] = [
    ([], nil, .active, nil, .slot(0)),
    ([], nil, .active, "classic", .named("classic")),
    ([], nil, .active, "  ", .slot(0)),
    ([PatternRule(pattern: .slot(3))], nil, .active, "classic", .slot(3)),
    ([PatternRule(levels: [.critical], pattern: .slot(5))], nil, .active, nil, .slot(0)),
    ([PatternRule(levels: [.critical], pattern: .slot(5))], nil, .critical, nil, .slot(5)),
    ([PatternRule(callers: ["415-555-0100"], pattern: .slot(7))], "+1 415 555 0100", .active, nil, .slot(7)),
    ([PatternRule(callers: ["415-555-0100"], pattern: .slot(7))], "+1 415 555 0101", .active, nil, .slot(0)),
    ([PatternRule(callers: ["anonymous"], pattern: .slot(7))], "anonymous", .active, nil, .slot(0)),
    // A rule without a pattern leaves it to the next matching rule.
    ([PatternRule(boards: ["board"]), PatternRule(pattern: .slot(2))], nil, .active, nil, .slot(2)),
    ([PatternRule(pattern: .slot(1)), PatternRule(pattern: .slot(2))], nil, .active, nil, .slot(1)),
  ]

  @Test(arguments: patterns)
  func thePatternComesFromRulesThenTheHintThenTheDefault(
    rules: [PatternRule], caller: String?, level: InterruptionLevel, hint: String?, pattern: PatternReference
  ) {
    var engine = makeEngine(configuration(rules: rules))
    let effects = engine.handle(.call(call("c1", from: caller, level: level, hint: hint)), at: t(0))
    #expect(effects.plays.map(\.pattern) == [pattern])
  }

  /// (the first matching rule's boards, the boards the call rings).
  static let routes: [([String], [String])] = [
    ([], ["desk", "bed"]),
    (["bed"], ["bed"]),
    (["bed", "desk"], ["desk", "bed"]),
    (["bed", "attic"], ["bed"]),
    (["attic"], ["desk", "bed"]),  // a rule naming no configured board rings all rather than none
  ]

  @Test(arguments: routes)
  func theFirstMatchingRuleNamesTheBoards(named: [String], rings: [String]) {
    var engine = makeEngine(configuration(boards: ["desk", "bed"], rules: [PatternRule(boards: named)]))
    #expect(engine.handle(.call(call("c1")), at: t(0)).plays.map(\.board) == rings)
  }
}
