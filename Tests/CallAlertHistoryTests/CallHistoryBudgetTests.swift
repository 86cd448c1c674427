import CallAlertEngine
import CallAlertHistory
import CallAlertValues
import Foundation
import Testing

/// What the call budget leaves in the history: a displaced call is missed with its reason,
/// refusals are one row per source and minute, never missed, never under a call's own id.
@Suite struct CallHistoryBudgetTests {
  @Test func aDisplacedCallIsMissedWithItsReason() throws {
    let history = try CallHistory.inMemory()
    let call = IncomingCall(id: "m0", source: .mqtt)
    try history.record(ringing(call), at: at(0))
    try history.record(.stopped(callID: "m0", reason: .displaced), at: at(1))
    try history.record(.missed(call, reason: .displaced), at: at(1))
    let rows = try history.calls()
    #expect(rows.map(\.outcome) == [.missed] && rows.map(\.reason) == ["displaced"] && rows.map(\.missed) == [true])
    #expect(try history.unacknowledgedMissed().map(\.id) == ["m0"])
  }

  /// The same in one batch (a call and its displacement written in one commit).
  @Test func aDisplacedCallInOneBatchIsTheSame() throws {
    let history = try CallHistory.inMemory()
    let call = IncomingCall(id: "m0", source: .mqtt)
    try history.record([
      HistoryRecord(ringing(call), at: at(0)), HistoryRecord(.stopped(callID: "m0", reason: .displaced), at: at(1)),
      HistoryRecord(.missed(call, reason: .displaced), at: at(1)),
    ])
    let rows = try history.calls()
    #expect(rows.map(\.outcome) == [.missed] && rows.map(\.reason) == ["displaced"])
  }

  @Test func refusalsAreOneRowPerSummaryNeverMissed() throws {
    let history = try CallHistory.inMemory()
    let first = IncomingCall(id: "f33", callerNumber: "+4930123", source: .mqtt)
    try history.record(.callsRefused(source: .mqtt, count: 1, first: first, since: at(0)), at: at(0))
    let later = IncomingCall(id: "f40", source: .mqtt)
    try history.record(.callsRefused(source: .mqtt, count: 523, first: later, since: at(1)), at: at(60))
    let rows = try history.calls()
    #expect(rows.map(\.id) == ["refused:mqtt:f40", "refused:mqtt:f33"])
    #expect(rows.map(\.outcome) == [.refused, .refused])
    #expect(rows.map(\.reason) == ["too-many-calls: 523 calls from mqtt", "too-many-calls: 1 call from mqtt"])
    #expect(rows.map(\.receivedAt) == [at(1), at(0)] && rows.map(\.endedAt) == [at(60), at(0)])
    #expect(rows.last?.callerNumber == "+4930123")
    #expect(try history.calls(missedOnly: true).isEmpty)
    // A refused call sent again is no replay: its own id is not in the history.
    #expect(try !history.containsCall(id: "f33"))
  }
}
