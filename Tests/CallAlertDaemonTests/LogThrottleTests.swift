import Testing

@testable import CallAlertDaemon

/// The first of a kind is logged, the rest counted and summarised once per interval.
@Suite struct LogThrottleTests {
  @Test func theFirstIsLoggedTheRestSummarisedPerInterval() {
    var throttle = LogThrottle(intervalMs: 10_000)
    var logged = throttle.admit("fault motor_duty", at: 0)
    #expect(logged)
    var loggedAgain = 0
    for ms in 1...6_666 where throttle.admit("fault motor_duty", at: UInt64(ms)) { loggedAgain += 1 }
    #expect(loggedAgain == 0)
    logged = throttle.admit("fault flash", at: 5_000)
    #expect(logged, "another kind is logged in full")
    var due = throttle.due(at: 9_999)
    #expect(due.isEmpty)
    #expect(throttle.nextDeadlineMs == 10_000)
    due = throttle.due(at: 10_000)
    #expect(due == [.init(key: "fault motor_duty", count: 6_666, amount: 6_666)])
    // The flood goes on: counted, not logged in full again, summarised at the next interval's end.
    logged = throttle.admit("fault motor_duty", at: 12_000)
    #expect(!logged)
    due = throttle.due(at: 15_000)
    #expect(due.isEmpty, "fault flash had no repeats: forgotten without a summary")
    due = throttle.due(at: 20_000)
    #expect(due == [.init(key: "fault motor_duty", count: 1, amount: 1)])
    // A whole quiet interval: the kind is forgotten, and its next occurrence logged in full.
    due = throttle.due(at: 30_000)
    #expect(due.isEmpty)
    #expect(throttle.nextDeadlineMs == nil)
    logged = throttle.admit("fault motor_duty", at: 31_000)
    #expect(logged)
  }

  @Test func amountsAddUp() {
    var throttle = LogThrottle(intervalMs: 1_000)
    _ = throttle.admit("line noise", amount: 2_048, at: 0)
    _ = throttle.admit("line noise", amount: 2_048, at: 10)
    let logged = throttle.admit("line noise", amount: 100, at: 20)
    #expect(!logged)
    let due = throttle.due(at: 1_000)
    #expect(due == [.init(key: "line noise", count: 2, amount: 2_148)])
  }
}
