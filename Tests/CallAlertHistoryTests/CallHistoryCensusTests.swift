import CallAlertEngine
import CallAlertHistory
import CallAlertValues
import Foundation
import Testing

@Suite struct CallHistoryCensusTests {
  @Test func countsByOutcomeForAPrefix() throws {
    let history = try CallHistoryQueryTests.filled()  // c0-c9, a minute apart; c0, c3, c6, c9 missed
    try history.record(ringing(IncomingCall(id: "other")), at: at(-60))
    let census = try history.census(idPrefix: "c")
    #expect(census.byOutcome == [.hungUp: 6, .missed: 4])
    #expect(census.total == 10)
    #expect(census.missed == 4)
    #expect(census.unacknowledgedMissed == 4)
    #expect(census.oldest == at(0))
    #expect(census.newest == at(540))
    #expect(try history.census().byOutcome[.ringing] == 1)
    #expect(try history.census().oldest == at(-60))
  }

  @Test func anEmptyHistoryCountsNothing() throws {
    let census = try CallHistory.inMemory().census()
    #expect(census == CallHistoryCensus())
    #expect(census.total == 0)
  }
}
