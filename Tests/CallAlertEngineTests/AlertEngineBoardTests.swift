import CallAlertProtocol
import Foundation
import Testing

@testable import CallAlertEngine

/// Boards: connecting, losing and regaining them, routing rules, and what they report.
@Suite struct AlertEngineBoardTests {
  @Test func boardsStartDisconnectedAndCatchUpWhenTheyConnect() {
    var engine = AlertEngine(configuration: configuration(), now: t(0))
    #expect(engine.snapshot(at: t(0)).boards == [.init(name: "board", connected: false, callID: nil, token: nil)])
    let incoming = call("c1")
    // Rings nowhere yet, but is active and waits for a board.
    #expect(
      engine.handle(.call(incoming), at: t(0)) == [
        .event(.ringing(incoming, boards: [], pattern: .slot(0), capMs: 30_000, silent: false))
      ])
    #expect(
      engine.handle(.boardBack(board: "board"), at: t(4_000)) == [
        .event(.ringing(incoming, boards: ["board"], pattern: .slot(0), capMs: 26_000, silent: false)),
        .play(board: "board", token: 1, pattern: .slot(0), capMs: 26_000, options: []),
        .indicator(board: "board", dark),
      ])
  }

  @Test func aCallWhoseBoardsNeverConnectIsMissedAtItsCap() {
    var engine = AlertEngine(configuration: configuration(), now: t(0))
    let incoming = call("c1")
    _ = engine.handle(.call(incoming), at: t(0))
    #expect(
      engine.advance(to: t(30_000)) == [
        .event(.stopped(callID: "c1", reason: .cap)), .event(.missed(incoming, reason: .cap)),
      ])
    // The indicator waits for the board.
    #expect(engine.handle(.boardBack(board: "board"), at: t(31_000)) == [.indicator(board: "board", blink)])
  }

  @Test(arguments: [
    EngineInput.boardBack(board: "nope"), .boardLost(board: "nope"), .acknowledge(board: "nope"),
    .playEnded(board: "nope", token: 1, reason: .lease),
  ])
  func unknownBoardsAreIgnored(input: EngineInput) {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    #expect(engine.handle(input, at: t(1_000)).isEmpty)
    #expect(engine.snapshot(at: t(1_000)).activeCalls.count == 1)
  }

  @Test func aBoardLostMidRingResumesForTheTimeLeft() {
    var engine = makeEngine()
    let incoming = call("c1")
    _ = engine.handle(.call(incoming), at: t(0))
    #expect(
      engine.handle(.boardLost(board: "board"), at: t(10_000)) == [.event(.stopped(callID: "c1", reason: .boardLost))])
    // Still active: lost twice changes nothing more.
    #expect(engine.handle(.boardLost(board: "board"), at: t(11_000)).isEmpty)
    #expect(engine.snapshot(at: t(11_000)).activeCalls.map(\.remainingMs) == [19_000])
    #expect(
      engine.handle(.boardBack(board: "board"), at: t(15_000)) == [
        .event(.ringing(incoming, boards: ["board"], pattern: .slot(0), capMs: 15_000, silent: false)),
        .play(board: "board", token: 2, pattern: .slot(0), capMs: 15_000, options: []),
        .indicator(board: "board", dark),
      ])
    #expect(engine.advance(to: t(30_000)).boardCommands.contains(.stop(board: "board", token: 2)))
  }

  @Test func aBoardBackAfterTheCapGetsNothingButTheIndicator() {
    var engine = makeEngine()
    let incoming = call("c1")
    _ = engine.handle(.call(incoming), at: t(0))
    _ = engine.handle(.boardLost(board: "board"), at: t(10_000))
    #expect(
      engine.advance(to: t(30_000)) == [
        .event(.stopped(callID: "c1", reason: .cap)), .event(.missed(incoming, reason: .cap)),
      ])
    #expect(engine.handle(.boardBack(board: "board"), at: t(40_000)) == [.indicator(board: "board", blink)])
  }

  @Test func aBoardThatReconnectsWithoutBeingLostReplays() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    // The daemon reconnected after a board reset: whatever played there is gone.
    #expect(engine.handle(.boardBack(board: "board"), at: t(5_000)).plays.map(\.token) == [2])
  }

  @Test func aBoardBackStillRingingAHungUpCallIsStopped() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    _ = engine.handle(.boardLost(board: "board"), at: t(1_000))
    _ = engine.handle(.hangup(callID: "c1"), at: t(1_200))
    // The cable was out, not the power: the board still plays token 1 until its lease lapses.
    #expect(
      engine.handle(.boardBack(board: "board", playing: 1), at: t(1_500)) == [
        .stop(board: "board", token: 1), .indicator(board: "board", dark),
      ])
    // Nothing reported playing: nothing to stop.
    _ = engine.handle(.boardLost(board: "board"), at: t(2_000))
    #expect(
      engine.handle(.boardBack(board: "board", playing: nil), at: t(2_500)) == [.indicator(board: "board", dark)])
  }

  @Test func aBoardBackStillRingingTheCallItShouldRingGetsAFreshPlayInstead() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    _ = engine.handle(.boardLost(board: "board"), at: t(1_000))
    let back = engine.handle(.boardBack(board: "board", playing: 1), at: t(1_500))
    // A PLAY replaces whatever plays (PROTOCOL.md): no STOP, which would only cut the ring short.
    #expect(back.plays.map(\.token) == [2])
    #expect(!back.boardCommands.contains { if case .stop = $0 { true } else { false } })
  }

  /// Two boards: VIP callers ring both, everyone else the desk only.
  let routed = configuration(
    boards: ["desk", "bed"],
    rules: [
      PatternRule(callers: ["+1 415 555 0100"], pattern: .named("vip"), boards: ["desk", "bed"]),
      PatternRule(boards: ["desk"]),
    ], vibrateOnly: ["bed"])

  @Test func rulesRouteCallersToBoards() {
    var engine = makeEngine(routed)
    let vip = call("vip", from: "(415) 555-0100")
    #expect(
      engine.handle(.call(vip), at: t(0)) == [
        .event(.ringing(vip, boards: ["desk", "bed"], pattern: .named("vip"), capMs: 30_000, silent: false)),
        .play(board: "desk", token: 1, pattern: .named("vip"), capMs: 30_000, options: []),
        .play(board: "bed", token: 2, pattern: .named("vip"), capMs: 30_000, options: [.muteBuzzer]),
      ])
    _ = engine.handle(.hangup(callID: "vip"), at: t(1_000))
    let other = call("other", from: "(415) 555-0199")
    #expect(
      engine.handle(.call(other), at: t(2_000)) == [
        .event(.ringing(other, boards: ["desk"], pattern: .slot(0), capMs: 30_000, silent: false)),
        .play(board: "desk", token: 3, pattern: .slot(0), capMs: 30_000, options: []),
      ])
  }

  @Test func oneLostBoardDoesNotStopTheOther() {
    var engine = makeEngine(routed)
    _ = engine.handle(.call(call("vip", from: "+14155550100")), at: t(0))
    // The desk still rings it: no stop event, nothing for the desk.
    #expect(engine.handle(.boardLost(board: "bed"), at: t(5_000)).isEmpty)
    #expect(engine.snapshot(at: t(5_000)).activeCalls.first?.playingOn == ["desk"])
    // Then the desk goes too: now nothing rings it.
    #expect(
      engine.handle(.boardLost(board: "desk"), at: t(6_000)) == [.event(.stopped(callID: "vip", reason: .boardLost))])
    let back = engine.handle(.boardBack(board: "bed"), at: t(7_000))
    #expect(back.plays == [Play(board: "bed", token: 3, pattern: .named("vip"), capMs: 23_000, options: [.muteBuzzer])])
  }

  @Test func aCallNotPlayingOnTheLostBoardIsNotReportedStopped() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("a")), at: t(0))
    _ = engine.handle(.call(call("b", level: .critical)), at: t(1_000))
    // Only b played there.
    #expect(
      engine.handle(.boardLost(board: "board"), at: t(2_000)) == [.event(.stopped(callID: "b", reason: .boardLost))])
  }

  /// (how the play ended, what the engine does at 10 s into a 30 s call playing under token 1).
  static let playEndings: [(PlayEndReason, [EngineEffect])] = [
    (.lease, [.play(board: "board", token: 2, pattern: .slot(0), capMs: 20_000, options: [])]),
    (.fault, [.play(board: "board", token: 2, pattern: .slot(0), capMs: 20_000, options: [])]),
    (.stopped, []),
    (.completed, []),
    (.superseded, []),
    (
      .cap,
      [
        .event(.stopped(callID: "c1", reason: .cap)), .event(.missed(call("c1"), reason: .cap)),
        .indicator(board: "board", blink),
      ]
    ),
  ]

  @Test(arguments: playEndings)
  func whatABoardReportsAboutItsPlay(reason: PlayEndReason, effects: [EngineEffect]) {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    #expect(engine.handle(.playEnded(board: "board", token: 1, reason: reason), at: t(10_000)) == effects)
  }

  @Test func aBoardThatFaultsOnEveryPlayIsRestartedOnlyThreeTimes() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    var token: UInt32 = 1
    for attempt in 1...3 {
      let effects = engine.handle(
        .playEnded(board: "board", token: token, reason: .fault), at: t(UInt64(attempt) * 1_000))
      #expect(
        effects == [
          .play(
            board: "board", token: token + 1, pattern: .slot(0), capMs: UInt16(30_000 - attempt * 1_000), options: [])
        ])
      token += 1
    }
    #expect(engine.handle(.playEnded(board: "board", token: token, reason: .fault), at: t(4_000)) == [])
    // The call still ends at its cap, and a new call gets fresh restarts.
    _ = engine.handle(.hangup(callID: "c1"), at: t(5_000))
    _ = engine.handle(.call(call("c2")), at: t(6_000))
    #expect(engine.handle(.playEnded(board: "board", token: token + 1, reason: .lease), at: t(7_000)).count == 1)
  }

  @Test(arguments: [PlayEndReason.completed, .stopped, .cap, .lease, .fault, .superseded])
  func staleTokensAreIgnored(reason: PlayEndReason) {
    var engine = makeEngine()
    _ = engine.handle(.call(call("a")), at: t(0))
    _ = engine.handle(.call(call("b")), at: t(1_000))  // token 2 superseded token 1
    #expect(engine.handle(.playEnded(board: "board", token: 1, reason: reason), at: t(2_000)).isEmpty)
    #expect(engine.handle(.playEnded(board: "board", token: 99, reason: reason), at: t(2_000)).isEmpty)
  }

  @Test func aCompletedPatternLeavesTheCallActiveUntilItsCap() {
    var engine = makeEngine()
    let incoming = call("c1")
    _ = engine.handle(.call(incoming), at: t(0))
    _ = engine.handle(.playEnded(board: "board", token: 1, reason: .completed), at: t(3_000))
    #expect(engine.snapshot(at: t(3_000)).activeCalls.first?.playingOn == [])
    // No STOP for a play that already ended.
    #expect(
      engine.advance(to: t(30_000)) == [
        .event(.stopped(callID: "c1", reason: .cap)), .event(.missed(incoming, reason: .cap)),
        .indicator(board: "board", blink),
      ])
  }

  @Test func theButtonStopsLocallyThenTheAcknowledgeStopsTheRest() {
    var engine = makeEngine(configuration(boards: ["desk", "bed"]))
    _ = engine.handle(.call(call("c1")), at: t(0))  // desk 1, bed 2
    #expect(engine.handle(.playEnded(board: "desk", token: 1, reason: .stopped), at: t(2_000)).isEmpty)
    #expect(
      engine.handle(.acknowledge(board: "desk"), at: t(2_000)) == [
        .event(.stopped(callID: "c1", reason: .acknowledged)), .stop(board: "bed", token: 2),
      ])
  }

  @Test func theBoardsCapReportAtTheDeadlineIsStale() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    let effects = engine.handle(.playEnded(board: "board", token: 1, reason: .cap), at: t(30_000))
    // The engine's own deadline ended the call first; the report adds nothing.
    #expect(effects.events.filter { $0 == .stopped(callID: "c1", reason: .cap) }.count == 1)
    #expect(effects.boardCommands == [.indicator(board: "board", blink), .stop(board: "board", token: 1)])
  }

  @Test func aLeaseLapseOnAnotherCallsBoardReplaysThatBoardOnly() {
    var engine = makeEngine(configuration(boards: ["desk", "bed"]))
    _ = engine.handle(.call(call("c1")), at: t(0))  // desk 1, bed 2
    #expect(
      engine.handle(.playEnded(board: "bed", token: 2, reason: .lease), at: t(29_000)) == [
        .play(board: "bed", token: 3, pattern: .slot(0), capMs: 1_000, options: [])
      ])
  }
}
