import CallAlertEngine
import CallAlertHistory
import CallAlertValues
import Foundation
import Testing

/// A batch folds a call that rings and ends within it into its final row; whatever the events, the rows are
/// the ones the same events leave written one at a time.
@Suite struct CallHistoryBatchTests {
  /// A small deterministic generator (a linear congruential one): the same seed, the same events.
  struct Generator {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
  }

  /// `count` events about four calls, one every 100 ms from `start`: every kind the engine reports.
  static func events(seed: UInt64, count: Int, from start: Double) -> [HistoryRecord] {
    var generator = Generator(state: seed)
    let patterns: [PatternReference] = [.named("office"), .slot(2), .named("UK")]
    return (0..<count).map { index in
      let call = IncomingCall(
        id: "c\(generator.next(4))", callerNumber: "+4930\(generator.next(100))", level: .active)
      let event: EngineEvent
      switch generator.next(10) {
      case 0, 1, 2:
        event = ringing(
          call, boards: ["desk", "bed"].prefix(1 + generator.next(2)).map { $0 },
          pattern: patterns[generator.next(patterns.count)])
      case 3, 4:
        let reasons: [StopReason] = [.hangup, .answered, .acknowledged, .cap, .unanswered, .boardLost]
        event = .stopped(callID: call.id, reason: reasons[generator.next(reasons.count)])
      case 5:
        let reasons: [SuppressionReason] = [.doNotDisturb, .passive, .hungUpBeforeArrival, .tooLate]
        event = .suppressed(call, reason: reasons[generator.next(reasons.count)])
      case 6:
        let reasons: [MissedReason] = [.cap, .suppressed, .tooLate, .unanswered]
        event = .missed(call, reason: reasons[generator.next(reasons.count)])
      case 7:
        event = .missedAcknowledged(count: 1)
      case 8:
        event = .patternFallback(
          callID: call.id, board: ["desk", "bed"][generator.next(2)], requested: .named("office"),
          played: "UK", reason: "no such slot")
      default:
        event = .ignored(callID: call.id, reason: .unknownCall)
      }
      return HistoryRecord(event, at: at(start + Double(index) * 0.1))
    }
  }

  /// Every column of every row, with the acknowledgement, in the order `history` shows them.
  static func rows(_ history: CallHistory) throws -> [CallRecord] {
    try history.calls(limit: 10_000)
  }

  /// Some events already on disk, then the rest as one batch or one at a time: the same rows, for 200
  /// sequences of events.
  @Test(arguments: 0..<200)
  func aBatchLeavesTheRowsItsEventsLeaveOneByOne(seed: UInt64) throws {
    let before = Self.events(seed: seed &* 7 &+ 1, count: 12, from: 0)
    let batch = Self.events(seed: seed, count: 40, from: 10)
    let batched = try CallHistory.inMemory()
    let single = try CallHistory.inMemory()
    for history in [batched, single] {
      for record in before { try history.record(record.event, at: record.date) }
    }
    try batched.record(batch)
    for record in batch { try single.record(record.event, at: record.date) }
    #expect(try Self.rows(batched) == Self.rows(single))
    #expect(try batched.unacknowledgedMissed() == single.unacknowledgedMissed())
  }

  /// The load the daemon sees under a flood: thousands of calls, each rung and hung up within the same
  /// batch: one row each, ended with its true outcome, none left ringing.
  @Test func callsAndTheirHangupsInOneBatchAreOneFinalRowEach() throws {
    let history = try CallHistory.inMemory()
    var records: [HistoryRecord] = []
    for index in 0..<2_000 {
      let start = Double(index) * 0.01
      records.append(HistoryRecord(ringing(IncomingCall(id: "c\(index)")), at: at(start)))
      records.append(
        HistoryRecord(
          .stopped(callID: "c\(index)", reason: index % 2 == 0 ? .hangup : .answered), at: at(start + 0.005)))
    }
    try history.record(records)
    let calls = try history.calls(limit: 10_000)
    #expect(calls.count == 2_000)
    #expect(calls.filter { $0.outcome == .hungUp }.count == 1_000)
    #expect(calls.filter { $0.outcome == .answered }.count == 1_000)
    #expect(calls.allSatisfy { $0.rangAt != nil && $0.endedAt != nil && !$0.missed })
    #expect(try history.closeInterrupted(at: at(100)) == 0, "none left ringing")
  }
}
