import CallAlertEngine
import CallAlertHistory
import CallAlertValues
import Foundation
import Testing

/// A history on disk: created with its folders, reopened without losing anything.
@Suite struct CallHistoryStorageTests {
  @Test func nothingIsLostAcrossRestarts() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let call = IncomingCall(
      id: "c1", callerNumber: "+4930123", callerName: "Zoë 📞", sentAt: at(-1), level: .critical)
    do {
      let history = try CallHistory(path: path)
      #expect(history.path == path)
      try history.record(ringing(call, boards: ["desk", "bed, left"]), at: at(0))
      try history.record(.stopped(callID: "c1", reason: .cap), at: at(30))
      try history.record(.suppressed(IncomingCall(id: "c2"), reason: .passive), at: at(40))
    }
    #expect(FileManager.default.fileExists(atPath: path))
    let before: [CallRecord]
    do {
      let reopened = try CallHistory(path: path)
      before = try reopened.calls()
      #expect(before.count == 2)
      #expect(try reopened.unacknowledgedMissed() == [call])
      let first = try #require(before.last)
      #expect(first.callerName == "Zoë 📞")
      #expect(first.boards == ["desk", "bed, left"])
      #expect(first.sentAt == at(-1))
      #expect(first.receivedAt == at(0))
      #expect(first.endedAt == at(30))
      try reopened.record(.missedAcknowledged(count: 1), at: at(50))
    }
    let third = try CallHistory(path: path)
    #expect(try third.unacknowledgedMissed().isEmpty)
    #expect(try third.calls().map(\.id) == before.map(\.id))
  }

  @Test func datesKeepTheirMilliseconds() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    do {
      try CallHistory(path: path).record(ringing(IncomingCall(id: "c", sentAt: at(0.123))), at: at(0.456))
    }
    let record = try #require(try CallHistory(path: path).calls().first)
    // Stored as text to the millisecond (readable in the sqlite3 shell); read back within a rounding step.
    func ms(_ date: Date?) -> Int64? { date.map { Int64(($0.timeIntervalSince1970 * 1_000).rounded()) } }
    #expect(ms(record.sentAt) == ms(at(0.123)))
    #expect(ms(record.receivedAt) == ms(at(0.456)))
  }

  @Test func callsStillRingingAtAStopAreClosedAsInterrupted() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    do {
      let history = try CallHistory(path: path)
      try history.record(ringing(IncomingCall(id: "c1")), at: at(0))
      try history.record(ringing(IncomingCall(id: "c2")), at: at(1))
      try history.record(.stopped(callID: "c2", reason: .hangup), at: at(2))
      // The daemon stops here, with c1 still ringing.
    }
    let history = try CallHistory(path: path)
    #expect(try history.closeInterrupted(at: at(100)) == 1)
    #expect(try history.closeInterrupted(at: at(101)) == 0)
    let record = try #require(try history.calls().last)
    #expect(record.id == "c1")
    #expect(record.outcome == .missed)
    #expect(record.reason == "interrupted")
    #expect(record.endedAt == at(100))
    #expect(try history.unacknowledgedMissed().map(\.id) == ["c1"])
  }

  @Test func aFolderThatCannotBeMadeIsAnError() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    // A file where a folder should be.
    let parent = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(
      atPath: (parent as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data().write(to: URL(fileURLWithPath: parent))
    #expect(throws: (any Error).self) { try CallHistory(path: path) }
  }

  @Test func twoOpenHistoriesOnOneFileSeeEachOther() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let writer = try CallHistory(path: path)
    let reader = try CallHistory(path: path)
    try writer.record(.missed(IncomingCall(id: "c1"), reason: .cap), at: at(0))
    #expect(try reader.unacknowledgedMissed().map(\.id) == ["c1"])
  }
}
