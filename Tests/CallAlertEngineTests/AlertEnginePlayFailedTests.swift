import CallAlertProtocol
import Testing

@testable import CallAlertEngine

/// A PLAY that did not reach the board, or that the board refused, is never reported as playing.
@Suite struct AlertEnginePlayFailedTests {
  @Test func aFailedPlayIsNotReportedAsPlayingAndIsNotSentAgainOnItsOwn() {
    var engine = makeEngine()
    let effects = engine.handle(.call(call("c1")), at: t(0))
    let token = try! #require(effects.plays.first?.token)
    #expect(engine.snapshot(at: t(10)).activeCalls.map(\.playingOn) == [["board"]])

    #expect(engine.handle(.playFailed(board: "board", token: token), at: t(100)).isEmpty, "no PLAY loop")
    let snapshot = engine.snapshot(at: t(100))
    #expect(snapshot.activeCalls.map(\.playingOn) == [[]], "the call plays nowhere")
    #expect(snapshot.boards.map(\.token) == [nil])
    #expect(snapshot.activeCalls.count == 1, "the call is still active: it ends by hangup, answer or cap")
  }

  @Test func aStaleFailureOfAnEarlierTokenChangesNothing() {
    var engine = makeEngine()
    let first = engine.handle(.call(call("c1")), at: t(0)).plays[0].token
    // The board is lost and comes back: the call is played again under a new token.
    _ = engine.handle(.boardLost(board: "board"), at: t(1_000))
    let again = engine.handle(.boardBack(board: "board"), at: t(2_000)).plays
    #expect(again.count == 1 && again[0].token != first)
    // The first PLAY's failure, reported late, must not unmark the new one.
    #expect(engine.handle(.playFailed(board: "board", token: first), at: t(2_100)).isEmpty)
    #expect(engine.snapshot(at: t(2_100)).activeCalls.map(\.playingOn) == [["board"]])
  }

  @Test func aFailureOnALostBoardIsIgnoredAndTheBoardCatchesUpWhenBack() {
    var engine = makeEngine()
    let token = engine.handle(.call(call("c1")), at: t(0)).plays[0].token
    _ = engine.handle(.boardLost(board: "board"), at: t(500))
    #expect(engine.handle(.playFailed(board: "board", token: token), at: t(600)).isEmpty)
    #expect(engine.handle(.boardBack(board: "board"), at: t(5_000)).plays.count == 1, "PLAY re-sent when back")
  }
}
