import CallAlertEngine
import CallAlertHistory
import Foundation
import Testing

@Suite struct CallHistoryQueryTests {
  /// Ten calls a minute apart; every third is missed.
  static func filled() throws -> CallHistory {
    let history = try CallHistory.inMemory()
    for index in 0..<10 {
      let call = IncomingCall(id: "c\(index)")
      try history.record(ringing(call), at: at(Double(index) * 60))
      let reason: StopReason = index % 3 == 0 ? .cap : .hangup
      try history.record(.stopped(callID: call.id, reason: reason), at: at(Double(index) * 60 + 30))
    }
    return history
  }

  @Test(arguments: [
    (false, 20, ["c9", "c8", "c7", "c6", "c5", "c4", "c3", "c2", "c1", "c0"]),
    (false, 3, ["c9", "c8", "c7"]),
    (false, 1, ["c9"]),
    (false, 0, []),
    (true, 20, ["c9", "c6", "c3", "c0"]),
    (true, 2, ["c9", "c6"]),
  ])
  func newestFirstWithALimit(missedOnly: Bool, limit: Int, ids: [String]) throws {
    #expect(try Self.filled().calls(missedOnly: missedOnly, limit: limit).map(\.id) == ids)
  }

  @Test func callsReceivedAtTheSameMomentKeepTheirOrder() throws {
    let history = try CallHistory.inMemory()
    for id in ["a", "b", "c"] {
      try history.record(.suppressed(IncomingCall(id: id), reason: .doNotDisturb), at: at(0))
    }
    #expect(try history.calls().map(\.id) == ["c", "b", "a"])
  }

  @Test func pruningKeepsWhatStillMatters() throws {
    let history = try Self.filled()
    try history.record(ringing(IncomingCall(id: "old-ringing")), at: at(-100))
    try history.record(.missedAcknowledged(count: 4), at: at(700))
    try history.record(.missed(IncomingCall(id: "unacknowledged"), reason: .tooLate), at: at(-50))
    // Before 5 minutes: c0-c4 go, except the one still ringing and the unacknowledged missed one.
    #expect(try history.prune(receivedBefore: at(300)) == 5)
    #expect(
      try history.calls().map(\.id) == ["c9", "c8", "c7", "c6", "c5", "unacknowledged", "old-ringing"])
  }
}
