import CallAlertProtocol
import Foundation
import Testing

@testable import CallAlertEngine

/// Missed calls: the indicator, acknowledging it, and restoring it when the daemon starts.
@Suite struct AlertEngineMissedTests {
  @Test func theFirstMissedCallTurnsTheIndicatorOnOnEveryConnectedBoard() {
    var engine = makeEngine(configuration(boards: ["desk", "bed", "away"]), connected: ["desk", "bed"])
    let first = call("p1", level: .passive)
    #expect(
      engine.handle(.call(first), at: t(0)) == [
        .event(.suppressed(first, reason: .passive)), .event(.missed(first, reason: .suppressed)),
        .indicator(board: "desk", blink), .indicator(board: "bed", blink),
      ])
    // Already on: the second adds to the list only.
    let second = call("p2", level: .passive)
    #expect(engine.handle(.call(second), at: t(1_000)).boardCommands.isEmpty)
    #expect(engine.snapshot(at: t(1_000)).missedCalls == [first, second])
  }

  @Test func acknowledgeClearsTheMissedCalls() {
    var engine = makeEngine(configuration(boards: ["desk", "bed"]))
    _ = engine.handle(.call(call("p1", level: .passive)), at: t(0))
    _ = engine.handle(.call(call("p2", level: .passive)), at: t(0))
    #expect(
      engine.handle(.acknowledge(board: nil), at: t(1_000)) == [
        .indicator(board: "desk", dark), .indicator(board: "bed", dark), .event(.missedAcknowledged(count: 2)),
      ])
    #expect(engine.snapshot(at: t(1_000)).missedCalls.isEmpty)
    #expect(engine.handle(.acknowledge(board: "desk"), at: t(2_000)).isEmpty)
    // The next missed call turns it on again.
    #expect(engine.handle(.call(call("p3", level: .passive)), at: t(3_000)).boardCommands.count == 2)
  }

  @Test func acknowledgingARingingCallLeavesTheMissedCallsAlone() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("p1", level: .passive)), at: t(0))
    _ = engine.handle(.call(call("c1")), at: t(1_000))
    #expect(
      engine.handle(.acknowledge(board: "board"), at: t(2_000)) == [
        .event(.stopped(callID: "c1", reason: .acknowledged)), .stop(board: "board", token: 1),
      ])
    #expect(engine.snapshot(at: t(2_000)).missedCalls.map(\.id) == ["p1"])
    // A second press clears them.
    #expect(engine.handle(.acknowledge(board: "board"), at: t(3_000)).events == [.missedAcknowledged(count: 1)])
  }

  /// The page's button beside one missed call: that call leaves the list, the indicator stays on while others
  /// wait and goes off with the last; a ringing call is not touched; an id that does not wait is said so.
  @Test func acknowledgingOneMissedCallLeavesTheOthers() {
    var engine = makeEngine(configuration(boards: ["desk", "bed"]))
    _ = engine.handle(.call(call("p1", level: .passive)), at: t(0))
    _ = engine.handle(.call(call("p2", level: .passive)), at: t(0))
    let ringing = engine.handle(.call(call("c1")), at: t(500))
    #expect(ringing.boardCommands.count == 2)
    #expect(
      engine.handle(.acknowledgeMissed(callID: "p1"), at: t(1_000)) == [.event(.missedCallAcknowledged(callID: "p1"))])
    #expect(engine.snapshot(at: t(1_000)).missedCalls.map(\.id) == ["p2"])
    #expect(engine.snapshot(at: t(1_000)).activeCalls.map(\.call.id) == ["c1"], "the ringing call rings on")
    #expect(
      engine.handle(.acknowledgeMissed(callID: "p1"), at: t(1_500)) == [
        .event(.ignored(callID: "p1", reason: .notMissed))
      ])
    #expect(
      engine.handle(.acknowledgeMissed(callID: "c1"), at: t(1_600)) == [
        .event(.ignored(callID: "c1", reason: .notMissed))
      ], "a ringing call is not a missed one")
    #expect(
      engine.handle(.acknowledgeMissed(callID: "p2"), at: t(2_000)) == [
        .indicator(board: "desk", dark), .indicator(board: "bed", dark), .event(.missedCallAcknowledged(callID: "p2")),
      ])
    #expect(engine.snapshot(at: t(2_000)).missedCalls.isEmpty)
  }

  @Test func restoreMissedTurnsTheIndicatorOnAtStart() {
    var engine = AlertEngine(configuration: configuration(), now: t(0))
    let old = [call("old1", from: "+14155550100"), call("old2")]
    // No board yet: nothing to send, and no events (the history has them).
    #expect(engine.restoreMissed(old, at: t(0)).isEmpty)
    #expect(engine.snapshot(at: t(0)).missedCalls == old)
    #expect(engine.handle(.boardBack(board: "board"), at: t(500)) == [.indicator(board: "board", blink)])
    // A notification redelivered after the restart does not ring again.
    #expect(engine.handle(.call(old[0]), at: t(1_000)) == [.event(.ignored(callID: "old1", reason: .duplicateCall))])
    #expect(engine.handle(.acknowledge(board: nil), at: t(2_000)).events == [.missedAcknowledged(count: 2)])
  }

  @Test func restoreMissedWithABoardConnected() {
    var engine = makeEngine()
    #expect(engine.restoreMissed([call("old1")], at: t(0)) == [.indicator(board: "board", blink)])
    // Restoring the same call again adds nothing.
    #expect(engine.restoreMissed([call("old1")], at: t(1)).isEmpty)
    #expect(engine.restoreMissed([], at: t(2)).isEmpty)
    #expect(engine.snapshot(at: t(2)).missedCalls.count == 1)
  }

  /// Every way a call can be missed, and its reason.
  static let missedReasons: [(IncomingCall, MissedReason)] = [
    (call("late", sentAtMs: -30_000), .tooLate),
    (call("passive", level: .passive), .suppressed),
  ]

  @Test(arguments: missedReasons)
  func everyCallThatDoesNotRingIsMissed(incoming: IncomingCall, reason: MissedReason) {
    var engine = makeEngine()
    #expect(engine.handle(.call(incoming), at: t(0)).events.last == .missed(incoming, reason: reason))
  }
}
