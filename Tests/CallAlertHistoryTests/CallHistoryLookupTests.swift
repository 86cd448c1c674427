import CallAlertEngine
import CallAlertHistory
import Foundation
import Testing

/// Whether the history holds a call, by its id: what a provider's replayed `ringing` is checked against.
@Suite struct CallHistoryLookupTests {
  @Test func aCallIsFoundWhateverBecameOfIt() throws {
    let history = try CallHistory.inMemory()
    #expect(try !history.containsCall(id: "CA1"))
    try history.record(ringing(IncomingCall(id: "CA1")), at: at(0))
    try history.record(.stopped(callID: "CA1", reason: .hangup), at: at(10))
    try history.record(.suppressed(IncomingCall(id: "CA2"), reason: .doNotDisturb), at: at(20))
    #expect(try history.containsCall(id: "CA1"))
    #expect(try history.containsCall(id: "CA2"))
    #expect(try !history.containsCall(id: "CA3"))
    #expect(try !history.containsCall(id: "ca1"))
    // As the daemon asks it: through the protocol its writer looks for.
    let lookup: any CallHistoryLookup = history
    #expect(try lookup.containsCall(id: "CA1"))
  }

  @Test func aCallTheRetentionDeletedIsForgotten() throws {
    let history = try CallHistory.inMemory()
    try history.record(ringing(IncomingCall(id: "old")), at: at(0))
    try history.record(.stopped(callID: "old", reason: .hangup), at: at(10))
    #expect(try history.prune(receivedBefore: at(3_600)) == 1)
    #expect(try !history.containsCall(id: "old"))
  }
}
