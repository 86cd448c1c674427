import CallAlertEngine
import Foundation
import Testing

@testable import CallAlertHistory

/// The history's statements walk an index, so that their cost does not grow with the history: on a million
/// calls, `history --limit 1000` sorted nothing, but `history --missed` sorted every missed call (a second)
/// and closing the calls left ringing read every row.
@Suite struct CallHistoryPlanTests {
  @Test(arguments: [
    (false, "SCAN calls USING INDEX calls_by_time"),
    (true, "SEARCH calls USING INDEX calls_missed_by_time (missed=?)"),
  ])
  func theListingsWalkAnIndex(missedOnly: Bool, step: String) throws {
    let plan = try CallHistory.inMemory().queryPlan(CallHistory.listing(missedOnly: missedOnly))
    #expect(plan == [step])
  }

  @Test func closingTheInterruptedCallsReadsOnlyTheRingingOnes() throws {
    let plan = try CallHistory.inMemory().queryPlan(CallHistory.closingInterrupted)
    #expect(plan == ["SEARCH calls USING INDEX calls_ringing (outcome=?)"])
  }

  @Test func endingACallFindsItsRowByItsID() throws {
    let sql = CallHistory.updatingLatestRow(set: "reason = ?", outcomes: 2)
    let plan = try CallHistory.inMemory().queryPlan(sql)
    #expect(plan.contains { $0.hasPrefix("SEARCH calls USING INDEX") && $0.contains("(id=?)") }, "\(plan)")
    #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
  }

  @Test func aHistoryFileReadByTheCommandHasTheIndexes() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    try CallHistory(path: path).record(.suppressed(IncomingCall(id: "old"), reason: .doNotDisturb), at: at(0))
    let history = try CallHistory.reading(path: path)
    #expect(
      try history.queryPlan(CallHistory.listing(missedOnly: true)).first?.contains("calls_missed_by_time") == true)
    #expect(try history.calls().map(\.id) == ["old"])
  }
}
