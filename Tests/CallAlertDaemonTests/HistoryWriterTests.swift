import CallAlertEngine
import CallAlertHistory
import Foundation
import Logging
import Testing

@testable import CallAlertDaemon

/// The daemon's history writer: writes off the concurrency pool, in order, and queries see them.
@Suite struct HistoryWriterTests {
  @Test func queriesSeeEveryRecordHandedInBeforeThemInOrder() async throws {
    let writer = HistoryWriter(try CallHistory.inMemory(), logger: Logger(label: "test"))
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    for index in 0..<50 {
      let call = IncomingCall(id: "c\(index)")
      let at = start.addingTimeInterval(Double(index))
      writer.record(.ringing(call, boards: ["desk"], pattern: .slot(0), capMs: 30_000, silent: false), at: at)
      writer.record(.stopped(callID: call.id, reason: index % 2 == 0 ? .hangup : .answered), at: at + 0.5)
    }
    // Asked at once, without waiting: the query runs after all hundred records.
    let calls = try await writer.calls(missedOnly: false, limit: 100)
    #expect(calls.count == 50)
    #expect(calls.first?.id == "c49", "newest first")
    #expect(Set(calls.map(\.id)) == Set((0..<50).map { "c\($0)" }))
    #expect(calls.allSatisfy { $0.endedAt != nil }, "each stop was written after its ring")
    await writer.drain()
  }
}
