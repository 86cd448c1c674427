import CallAlertEngine
import CallAlertProtocol
import Logging
import Testing

@testable import CallAlertDaemon

/// What a board's events mean for the engine, the link state and the log, and what the driver logs how
/// often: pure values, tested without a driver, a device or a clock.
@Suite struct BoardEventRouteTests {
  @Test func aPressIsToldToItsListenersThenAcknowledges() {
    #expect(
      BoardEventRoute.steps(for: .pressed(.longPress), board: "desk") == [
        .pressed(.longPress), .submit(.acknowledge(board: "desk")),
      ])
  }

  @Test func theEngineLearnsOfAnUnresponsiveBoardBeforeTheLinkShowsIt() {
    let steps = BoardEventRoute.steps(for: .unresponsive(reason: "PING"), board: "desk")
    let submitted = steps.firstIndex(of: .submit(.boardLost(board: "desk")))
    let shown = steps.firstIndex(of: .link(.unresponsive))
    #expect(submitted != nil && shown != nil && submitted! < shown!)
  }

  @Test func aLostOrRestartedBoardPlaysNothing() {
    let lost = BoardEventRoute.steps(for: .lost(reason: "unplugged"), board: "desk")
    #expect(lost.contains(.forgetPlaying) && lost.contains(.link(.disconnected)))
    #expect(lost.last == .submit(.boardLost(board: "desk")))
    let restarted = BoardEventRoute.steps(for: .restarted, board: "desk")
    #expect(restarted.first == .forgetPlaying)
    #expect(restarted.last == .submit(.boardBack(board: "desk")))
  }

  @Test func aBoardThatComesBackReportsWhatItPlays() {
    #expect(
      BoardEventRoute.steps(for: .reconnected(playing: 9), board: "desk") == [
        .link(.connected), .submit(.boardBack(board: "desk", playing: 9)),
      ])
    #expect(BoardEventRoute.steps(for: .closed, board: "desk") == [.link(.disconnected)])
  }

  @Test func anUnavailableBoardIsLoggedOncePerReason() {
    var log = BoardDriverLog(board: "desk")
    #expect(log.unavailable("no port", retryingIn: .seconds(1)).0 == .notice)
    #expect(log.unavailable("no port", retryingIn: .seconds(2)).0 == .debug)
    #expect(log.unavailable("busy", retryingIn: .seconds(4)).0 == .notice)
  }

  @Test func aFallbackIsLoggedOnceAndAgainAfterAConnect() {
    var log = BoardDriverLog(board: "desk")
    #expect(log.fallback("plays UK instead") == .notice)
    #expect(log.fallback("plays UK instead") == .debug)
    log.connected()
    #expect(log.fallback("plays UK instead") == .notice)
  }

  @Test func repeatedFaultsAreSummarisedPerInterval() {
    var log = BoardDriverLog(board: "desk")
    #expect(log.fault("overcurrent", detail: "1", at: 0) == "board desk overcurrent, detail 1")
    #expect(log.fault("overcurrent", detail: "2", at: 10) == nil)
    #expect(log.fault("overcurrent", detail: "3", at: 20) == nil)
    let due = try? #require(log.nextSummaryMs)
    #expect(due == BoardDriverLog.summaryIntervalMs)
    #expect(log.summaries(at: due ?? 0) == ["board desk overcurrent repeated 2 more times in the last 10 s"])
  }
}
