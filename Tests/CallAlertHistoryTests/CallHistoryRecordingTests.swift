import CallAlertEngine
import CallAlertHistory
import CallAlertValues
import Foundation
import Testing

/// How each engine event changes the history.
@Suite struct CallHistoryRecordingTests {
  static let alice = IncomingCall(
    id: "c1", callerNumber: "+4930123", callerName: "Alice", sentAt: at(-0.5), level: .timeSensitive,
    patternHint: "office")

  @Test func aRingingCallIsStoredWithEverythingTheEngineSaid() throws {
    let history = try CallHistory.inMemory()
    try history.record(ringing(Self.alice, boards: ["desk", "bed"], pattern: .slot(3)), at: at(0))
    #expect(
      try history.calls()
        == [
          CallRecord(
            id: "c1", callerNumber: "+4930123", callerName: "Alice", level: .timeSensitive, patternHint: "office",
            receivedAt: at(0), sentAt: at(-0.5), rangAt: at(0), outcome: .ringing, boards: ["desk", "bed"],
            pattern: "slot 3")
        ])
  }

  /// A fallback is what the row names: the pattern that played, and the one it stood in for.
  @Test func aFallbackNamesThePatternThatPlayed() throws {
    let history = try CallHistory.inMemory()
    try history.record(ringing(Self.alice, boards: ["desk"], pattern: .named("office")), at: at(0))
    try history.record(
      .patternFallback(callID: "c1", board: "desk", requested: .named("office"), played: "UK", reason: "no such slot"),
      at: at(0.1))
    #expect(try history.calls().map(\.pattern) == ["UK (fallback for office on desk)"])
    try history.record(
      .patternFallback(
        callID: "c1", board: "bed", requested: .named("office"), played: "UK on the motor", reason: "no such slot"),
      at: at(0.2))
    #expect(
      try history.calls().map(\.pattern) == [
        "UK (fallback for office on desk); UK on the motor (fallback for office on bed)"
      ])
  }

  /// Records written as one batch (one commit) leave the rows that the same records one by one leave.
  @Test func aBatchIsTheSameAsItsRecordsOneByOne() throws {
    let records = [
      HistoryRecord(ringing(Self.alice, boards: ["desk"], pattern: .named("office")), at: at(0)),
      HistoryRecord(
        .patternFallback(callID: "c1", board: "desk", requested: .named("office"), played: "UK", reason: "no slot"),
        at: at(0.1)),
      HistoryRecord(ringing(IncomingCall(id: "c2"), boards: ["desk"], pattern: .slot(0)), at: at(1)),
      HistoryRecord(.stopped(callID: "c1", reason: .hangup), at: at(2)),
      HistoryRecord(.stopped(callID: "c2", reason: .cap), at: at(31)),
    ]
    let batched = try CallHistory.inMemory()
    try batched.record(records)
    let single = try CallHistory.inMemory()
    for record in records { try single.record(record.event, at: record.date) }
    #expect(try batched.calls() == single.calls())
    #expect(try batched.calls().map(\.outcome) == [.missed, .hungUp])
  }

  /// The outcome mapping: each stop reason ends the ringing row as documented.
  @Test(arguments: [
    (StopReason.hangup, CallOutcome.hungUp, false),
    (.answered, .answered, false),
    (.acknowledged, .acknowledged, false),
    (.cap, .missed, true),
  ])
  func stopReasonsMapToOutcomes(reason: StopReason, outcome: CallOutcome, missed: Bool) throws {
    let history = try CallHistory.inMemory()
    try history.record(ringing(Self.alice), at: at(0))
    try history.record(.stopped(callID: "c1", reason: reason), at: at(12))
    let record = try #require(try history.calls().first)
    #expect(record.outcome == outcome)
    #expect(record.reason == reason.rawValue)
    #expect(record.endedAt == at(12))
    #expect(record.missed == missed)
    #expect(try history.unacknowledgedMissed().map(\.id) == (missed ? ["c1"] : []))
  }

  @Test func aBoardLostKeepsTheCallRingingAndARingAgainReusesTheRow() throws {
    let history = try CallHistory.inMemory()
    try history.record(ringing(Self.alice, boards: ["desk"]), at: at(0))
    try history.record(.stopped(callID: "c1", reason: .boardLost), at: at(3))
    var record = try #require(try history.calls().first)
    #expect(record.outcome == .ringing)
    #expect(record.reason == "board-lost")
    #expect(record.endedAt == nil)
    try history.record(ringing(Self.alice, boards: ["bed"], pattern: .named("quiet")), at: at(5))
    try history.record(.stopped(callID: "c1", reason: .hangup), at: at(9))
    let records = try history.calls()
    #expect(records.count == 1)
    record = try #require(records.first)
    #expect(record.rangAt == at(0))
    #expect(record.boards == ["bed"])
    #expect(record.pattern == "quiet")
    #expect(record.outcome == .hungUp)
    #expect(record.reason == "hangup")
  }

  @Test(arguments: [SuppressionReason.doNotDisturb, .passive, .hungUpBeforeArrival, .tooLate])
  func suppressedCallsAreStoredWithTheirReason(reason: SuppressionReason) throws {
    let history = try CallHistory.inMemory()
    try history.record(.suppressed(Self.alice, reason: reason), at: at(1))
    let record = try #require(try history.calls().first)
    #expect(record.outcome == .suppressed)
    #expect(record.reason == reason.rawValue)
    #expect(record.rangAt == nil)
    #expect(record.endedAt == at(1))
    #expect(!record.missed)
  }

  /// `missed` marks the call's row; a ringing row becomes `missed`, a suppressed one keeps its outcome and
  /// reason; with no row, one is made.
  @Test(arguments: [
    ("ringing", MissedReason.cap, CallOutcome.missed, "cap"),
    ("suppressed", .suppressed, .suppressed, "do-not-disturb"),
    ("none", .tooLate, .suppressed, "too-late"),
    ("none", .cap, .missed, "cap"),
    ("stopped by cap", .cap, .missed, "cap"),
  ])
  func missedCallsAreMarked(before: String, reason: MissedReason, outcome: CallOutcome, storedReason: String) throws {
    let history = try CallHistory.inMemory()
    switch before {
    case "ringing": try history.record(ringing(Self.alice), at: at(0))
    case "suppressed": try history.record(.suppressed(Self.alice, reason: .doNotDisturb), at: at(0))
    case "stopped by cap":
      try history.record(ringing(Self.alice), at: at(0))
      try history.record(.stopped(callID: "c1", reason: .cap), at: at(30))
    default: break
    }
    try history.record(.missed(Self.alice, reason: reason), at: at(30))
    let records = try history.calls()
    #expect(records.count == 1)
    let record = try #require(records.first)
    #expect(record.outcome == outcome)
    #expect(record.reason == storedReason)
    #expect(record.missed)
    #expect(!record.acknowledged)
    #expect(record.endedAt != nil)
    #expect(try history.unacknowledgedMissed() == [Self.alice])
  }

  @Test func acknowledgingMarksEveryMissedCallAndOnlyThose() throws {
    let history = try CallHistory.inMemory()
    let bob = IncomingCall(id: "c2", callerNumber: "+1")
    let carol = IncomingCall(id: "c3")
    try history.record(ringing(Self.alice), at: at(0))
    try history.record(.missed(Self.alice, reason: .cap), at: at(30))
    try history.record(.suppressed(bob, reason: .doNotDisturb), at: at(40))
    try history.record(.missed(bob, reason: .suppressed), at: at(40))
    try history.record(ringing(carol), at: at(50))
    try history.record(.stopped(callID: "c3", reason: .answered), at: at(55))
    #expect(try history.unacknowledgedMissed().map(\.id) == ["c1", "c2"])

    try history.record(.missedAcknowledged(count: 2), at: at(60))
    #expect(try history.unacknowledgedMissed().isEmpty)
    let records = try history.calls()
    #expect(records.map(\.id) == ["c3", "c2", "c1"])
    #expect(records.map(\.acknowledged) == [false, true, true])
    #expect(records.map(\.acknowledgedAt) == [nil, at(60), at(60)])

    // A later missed call waits for the next acknowledgement; the earlier ones keep their time.
    try history.record(.missed(IncomingCall(id: "c4"), reason: .tooLate), at: at(70))
    #expect(try history.unacknowledgedMissed().map(\.id) == ["c4"])
    try history.record(.missedAcknowledged(count: 1), at: at(80))
    #expect(try history.calls(missedOnly: true).map(\.acknowledgedAt) == [at(80), at(60), at(60)])
  }

  /// One missed call acknowledged (the page's button beside it): its row, and no other.
  @Test func acknowledgingOneMissedCallMarksItsRowsOnly() throws {
    let history = try CallHistory.inMemory()
    let bob = IncomingCall(id: "c2", callerNumber: "+1")
    try history.record(ringing(Self.alice), at: at(0))
    try history.record(.missed(Self.alice, reason: .cap), at: at(30))
    try history.record(.suppressed(bob, reason: .doNotDisturb), at: at(40))
    try history.record(.missed(bob, reason: .suppressed), at: at(40))
    try history.record(.missedCallAcknowledged(callID: "c2"), at: at(50))
    #expect(try history.unacknowledgedMissed().map(\.id) == ["c1"])
    let records = try history.calls()
    #expect(records.map(\.id) == ["c2", "c1"])
    #expect(records.map(\.acknowledgedAt) == [at(50), nil])
    // Again, or for a call never missed: nothing changes.
    try history.record(.missedCallAcknowledged(callID: "c2"), at: at(60))
    try history.record(.missedCallAcknowledged(callID: "c9"), at: at(61))
    #expect(try history.calls().map(\.acknowledgedAt) == [at(50), nil])
  }

  @Test func ignoredEventsAndStrayStopsChangeNothing() throws {
    let history = try CallHistory.inMemory()
    try history.record(.ignored(callID: "c1", reason: .unknownCall), at: at(0))
    try history.record(.stopped(callID: "c9", reason: .hangup), at: at(1))
    try history.record(.missedAcknowledged(count: 0), at: at(2))
    #expect(try history.calls().isEmpty)
    try history.record(ringing(Self.alice), at: at(3))
    try history.record(.ignored(callID: "c1", reason: .duplicateCall), at: at(4))
    #expect(try history.calls().map(\.outcome) == [.ringing])
  }

  @Test func aCallIDUsedAgainLaterIsANewRow() throws {
    let history = try CallHistory.inMemory()
    try history.record(ringing(Self.alice), at: at(0))
    try history.record(.stopped(callID: "c1", reason: .hangup), at: at(5))
    try history.record(ringing(Self.alice), at: at(3_600))
    try history.record(.stopped(callID: "c1", reason: .answered), at: at(3_610))
    #expect(try history.calls().map(\.outcome) == [.answered, .hungUp])
  }

  @Test func restoredMissedCallsAreTheCallsAsReceived() throws {
    let history = try CallHistory.inMemory()
    let withheld = IncomingCall(id: "w", level: .critical)
    try history.record(.missed(withheld, reason: .tooLate), at: at(0))
    try history.record(ringing(Self.alice), at: at(1))
    try history.record(.stopped(callID: "c1", reason: .cap), at: at(31))
    #expect(try history.unacknowledgedMissed() == [withheld, Self.alice])
  }
}
