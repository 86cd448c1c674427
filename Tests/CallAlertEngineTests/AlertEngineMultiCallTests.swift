import CallAlertProtocol
import Foundation
import Testing

@testable import CallAlertEngine

/// Several calls at once: which one a board plays, and each call's own cap.
@Suite struct AlertEngineMultiCallTests {
  @Test func theBoardPlaysTheMoreUrgentThenTheNewer() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("a")), at: t(0))  // token 1
    // More urgent: takes the board.
    #expect(
      engine.handle(.call(call("b", level: .timeSensitive)), at: t(5_000)).plays == [
        Play(board: "board", token: 2, pattern: .slot(0), capMs: 30_000, options: [])
      ])
    // Newer but less urgent: the board keeps playing b.
    let c = engine.handle(.call(call("c")), at: t(8_000))
    #expect(c.plays.isEmpty)
    #expect(c.boardCommands.isEmpty)
    // b hangs up: the newer of the rest (c) plays for its own time left.
    #expect(
      engine.handle(.hangup(callID: "b"), at: t(10_000)) == [
        .event(.stopped(callID: "b", reason: .hangup)),
        .play(board: "board", token: 3, pattern: .slot(0), capMs: 28_000, options: []),
      ])
    // c hangs up: a plays what is left of its cap.
    #expect(engine.handle(.hangup(callID: "c"), at: t(12_000)).plays.map(\.capMs) == [18_000])
  }

  /// (first level, second level, which call the board plays).
  static let precedence: [(InterruptionLevel, InterruptionLevel, String)] = [
    (.active, .active, "second"),
    (.active, .timeSensitive, "second"),
    (.timeSensitive, .active, "first"),
    (.critical, .timeSensitive, "first"),
    (.timeSensitive, .critical, "second"),
    (.critical, .critical, "second"),
  ]

  @Test(arguments: precedence)
  func precedenceIsUrgencyThenNewness(first: InterruptionLevel, second: InterruptionLevel, plays: String) {
    var engine = makeEngine()
    _ = engine.handle(.call(call("first", level: first)), at: t(0))
    _ = engine.handle(.call(call("second", level: second)), at: t(1_000))
    #expect(engine.snapshot(at: t(1_000)).boards.first?.callID == plays)
  }

  @Test func callsArrivingInTheSameMillisecondPlayTheLaterOne() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("first")), at: t(0))
    _ = engine.handle(.call(call("second")), at: t(0))
    #expect(engine.snapshot(at: t(0)).boards.first?.callID == "second")
  }

  @Test func eachCallKeepsItsOwnCap() {
    var engine = makeEngine()
    let a = call("a")
    _ = engine.handle(.call(a), at: t(0))
    _ = engine.handle(.call(call("b")), at: t(10_000))  // token 2, plays until 40 000
    #expect(engine.nextDeadlineMs == 30_000)
    // a reaches its cap while b plays: a is missed, the board is left alone.
    #expect(
      engine.advance(to: t(30_000)) == [
        .event(.stopped(callID: "a", reason: .cap)), .event(.missed(a, reason: .cap)),
        .indicator(board: "board", blink),
      ])
    #expect(engine.nextDeadlineMs == 40_000)
    #expect(engine.advance(to: t(40_000)).boardCommands == [.stop(board: "board", token: 2)])
  }

  @Test func hangingUpTheOlderCallLeavesTheBoardAlone() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("a")), at: t(0))
    _ = engine.handle(.call(call("b")), at: t(1_000))
    #expect(engine.handle(.hangup(callID: "a"), at: t(2_000)) == [.event(.stopped(callID: "a", reason: .hangup))])
  }

  @Test func theOlderCallResumesForItsOwnTimeLeft() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("a")), at: t(0))
    _ = engine.handle(.call(call("b")), at: t(1_000))
    #expect(engine.handle(.hangup(callID: "b"), at: t(4_000)).plays.map(\.capMs) == [26_000])
    #expect(engine.advance(to: t(30_000)).boardCommands.contains(.stop(board: "board", token: 3)))
  }

  @Test func answeredWithoutAnIdStopsEveryCall() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("a")), at: t(0))
    _ = engine.handle(.call(call("b")), at: t(1_000))
    #expect(
      engine.handle(.answered(callID: nil), at: t(2_000)) == [
        .event(.stopped(callID: "a", reason: .answered)), .event(.stopped(callID: "b", reason: .answered)),
        .stop(board: "board", token: 2),
      ])
    #expect(engine.nextDeadlineMs == 302_000)  // only the ids' memory
  }

  @Test func acknowledgeStopsEveryCallWithoutMissingThem() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("a")), at: t(0))
    _ = engine.handle(.call(call("b")), at: t(1_000))
    #expect(
      engine.handle(.acknowledge(board: "board"), at: t(2_000)) == [
        .event(.stopped(callID: "a", reason: .acknowledged)), .event(.stopped(callID: "b", reason: .acknowledged)),
        .stop(board: "board", token: 2),
      ])
    #expect(engine.snapshot(at: t(2_000)).missedCalls.isEmpty)
  }

  @Test func capsDueTogetherAreProcessedInDeadlineOrder() {
    var engine = makeEngine()
    let a = call("a")
    let b = call("b")
    _ = engine.handle(.call(a), at: t(0))
    _ = engine.handle(.call(b), at: t(1_000))
    // The daemon woke late: both caps are due, the board is stopped once.
    #expect(
      engine.advance(to: t(45_000)) == [
        .event(.stopped(callID: "a", reason: .cap)), .event(.missed(a, reason: .cap)),
        .indicator(board: "board", blink),
        .event(.stopped(callID: "b", reason: .cap)), .event(.missed(b, reason: .cap)),
        .stop(board: "board", token: 2),
      ])
  }
}
