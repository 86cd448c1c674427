import CallAlertProtocol
import Foundation
import Testing

@testable import CallAlertEngine

/// A call's life: ringing at once, the cap from its sent-at time, duplicates, tombstones and hangups.
@Suite struct AlertEngineCallTests {
  @Test func ringsAtOnceForTheWholeCap() {
    var engine = makeEngine()
    let incoming = call("c1", from: "+14155550100")
    let effects = engine.handle(.call(incoming), at: t(1_000))
    #expect(
      effects == [
        .event(.ringing(incoming, boards: ["board"], pattern: .slot(0), capMs: 30_000, silent: false)),
        .play(board: "board", token: 1, pattern: .slot(0), capMs: 30_000, options: []),
      ])
    #expect(engine.nextDeadlineMs == 31_000)
  }

  /// (how late it arrives in ms, configured cap, how long it rings; nil: never rings).
  static let lateness: [(Int64, UInt64, UInt64?)] = [
    (0, 30_000, 30_000),
    (12_000, 30_000, 18_000),
    (29_999, 30_000, 1),
    (30_000, 30_000, nil),
    (45_000, 30_000, nil),
    (-5_000, 30_000, 30_000),  // sent "in the future": the sender's clock is ahead, not a late call
    (0, 20_000, 20_000),
    (5_000, 20_000, 15_000),
    (20_000, 20_000, nil),
    (0, 45_000, 30_000),  // a configured cap above 30 s is clamped
  ]

  @Test(arguments: lateness)
  func ringsForWhatIsLeftOfTheCap(lateMs: Int64, capMs: UInt64, ringsMs: UInt64?) {
    var engine = makeEngine(configuration(capMs: capMs))
    let start: UInt64 = 100_000
    let incoming = call("c1", sentAtMs: Int64(start) - lateMs)
    let effects = engine.handle(.call(incoming), at: t(start))
    guard let ringsMs else {
      #expect(effects == [.event(.missed(incoming, reason: .tooLate)), .indicator(board: "board", blink)])
      #expect(engine.nextDeadlineMs == start + 300_000)  // only the id's memory: nothing rings
      #expect(engine.snapshot(at: t(start)).activeCalls.isEmpty)
      return
    }
    #expect(effects.events == [.ringing(incoming, boards: ["board"], pattern: .slot(0), capMs: ringsMs, silent: false)])
    #expect(effects.plays.map(\.capMs) == [UInt16(ringsMs)])
    #expect(engine.nextDeadlineMs == start + ringsMs)
    #expect(engine.advance(to: t(start + ringsMs - 1)).isEmpty)
    #expect(
      engine.advance(to: t(start + ringsMs)) == [
        .event(.stopped(callID: "c1", reason: .cap)), .event(.missed(incoming, reason: .cap)),
        .indicator(board: "board", blink), .stop(board: "board", token: 1),
      ])
  }

  @Test func aCallTwelveSecondsLateRingsEighteenSeconds() {
    var engine = makeEngine()
    let incoming = call("late", sentAtMs: 0)
    let effects = engine.handle(.call(incoming), at: t(12_000))
    #expect(effects.plays == [Play(board: "board", token: 1, pattern: .slot(0), capMs: 18_000, options: [])])
    #expect(engine.nextDeadlineMs == 30_000)
    #expect(engine.advance(to: t(29_999)).isEmpty)
    #expect(engine.advance(to: t(30_000)).events.first == .stopped(callID: "late", reason: .cap))
  }

  @Test func aCallThirtySecondsLateNeverRingsAndIsMissed() {
    var engine = makeEngine()
    let incoming = call("late", sentAtMs: 0)
    #expect(
      engine.handle(.call(incoming), at: t(30_000)) == [
        .event(.missed(incoming, reason: .tooLate)), .indicator(board: "board", blink),
      ])
    #expect(engine.snapshot(at: t(30_000)).missedCalls == [incoming])
    // Recorded: a second delivery is a duplicate, not a second missed call.
    #expect(engine.handle(.call(incoming), at: t(31_000)) == [.event(.ignored(callID: "late", reason: .duplicateCall))])
  }

  @Test func aDuplicateNeitherRestartsNorExtends() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    #expect(engine.handle(.call(call("c1")), at: t(10_000)) == [.event(.ignored(callID: "c1", reason: .duplicateCall))])
    #expect(engine.nextDeadlineMs == 30_000)
    #expect(engine.advance(to: t(30_000)).events.first == .stopped(callID: "c1", reason: .cap))
  }

  /// (when the second delivery comes after the first ended by hangup at 5 000 ms, whether it rings).
  static let duplicateAfterEnd: [(UInt64, Bool)] = [(5_001, false), (304_999, false), (305_000, true)]

  @Test(arguments: duplicateAfterEnd)
  func aFinishedCallIsRememberedForTheTombstoneTime(secondMs: UInt64, rings: Bool) {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    _ = engine.handle(.hangup(callID: "c1"), at: t(5_000))
    let effects = engine.handle(.call(call("c1")), at: t(secondMs))
    #expect(effects.plays.isEmpty == !rings)
    if !rings { #expect(effects == [.event(.ignored(callID: "c1", reason: .duplicateCall))]) }
  }

  @Test(arguments: [EngineInput.hangup(callID: "c1"), .answered(callID: "c1")])
  func aHangupBeforeItsCallSuppressesIt(first: EngineInput) {
    var engine = makeEngine()
    #expect(engine.handle(first, at: t(0)) == [.event(.ignored(callID: "c1", reason: .unknownCall))])
    #expect(engine.nextDeadlineMs == 300_000)
    let incoming = call("c1")
    #expect(
      engine.handle(.call(incoming), at: t(1_000)) == [
        .event(.suppressed(incoming, reason: .hungUpBeforeArrival)), .event(.missed(incoming, reason: .suppressed)),
        .indicator(board: "board", blink),
      ])
  }

  /// (when the call arrives after a hangup at 0, whether it rings): the tombstone lasts tombstoneMs.
  static let tombstoneExpiry: [(UInt64, Bool)] = [(299_999, false), (300_000, true), (400_000, true)]

  @Test(arguments: tombstoneExpiry)
  func aTombstoneExpires(arrivalMs: UInt64, rings: Bool) {
    var engine = makeEngine()
    _ = engine.handle(.hangup(callID: "c1"), at: t(0))
    let effects = engine.handle(.call(call("c1")), at: t(arrivalMs))
    #expect(effects.plays.count == (rings ? 1 : 0))
  }

  @Test func tombstonesAgeOutWithTime() {
    var engine = makeEngine()
    _ = engine.handle(.hangup(callID: "c1"), at: t(0))
    #expect(engine.nextDeadlineMs == 300_000)
    #expect(engine.advance(to: t(300_000)).isEmpty)
    #expect(engine.nextDeadlineMs == nil)
  }

  @Test func anUnknownHangupChangesNothingElse() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    #expect(
      engine.handle(.hangup(callID: "other"), at: t(1_000)) == [.event(.ignored(callID: "other", reason: .unknownCall))]
    )
    #expect(engine.snapshot(at: t(1_000)).activeCalls.map(\.call.id) == ["c1"])
  }

  @Test func aHangupAfterTheCallEndedIsSilent() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    _ = engine.advance(to: t(30_000))
    #expect(engine.handle(.hangup(callID: "c1"), at: t(31_000)).isEmpty)
  }

  /// The caller gave up before anyone answered: the ring stops and the call is missed, its indicator on.
  @Test func anUnansweredCallStopsAndIsMissed() {
    var engine = makeEngine()
    let incoming = call("c1", from: "+14155550100")
    _ = engine.handle(.call(incoming), at: t(0))
    let effects = engine.handle(.unanswered(callID: "c1"), at: t(2_000))
    #expect(effects.contains(.event(.stopped(callID: "c1", reason: .unanswered))))
    #expect(effects.contains(.stop(board: "board", token: 1)))
    #expect(effects.contains(.event(.missed(incoming, reason: .unanswered))))
    #expect(
      effects.contains {
        if case .indicator(board: "board", let setting) = $0 { setting.mode == .blink } else { false }
      })
    #expect(engine.snapshot(at: t(2_000)).missedCalls.map(\.id) == ["c1"])
    #expect(engine.snapshot(at: t(2_000)).activeCalls.isEmpty)
  }

  /// (input, the stop reason): a hangup or answer stops that call and it is not missed.
  static let enders: [(EngineInput, StopReason)] = [
    (.hangup(callID: "c1"), .hangup), (.answered(callID: "c1"), .answered),
  ]

  @Test(arguments: enders)
  func aHangupOrAnswerStopsTheCall(input: EngineInput, reason: StopReason) {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    #expect(
      engine.handle(input, at: t(2_000)) == [
        .event(.stopped(callID: "c1", reason: reason)), .stop(board: "board", token: 1),
      ])
    #expect(engine.snapshot(at: t(2_000)).missedCalls.isEmpty)
    #expect(engine.advance(to: t(30_000)).isEmpty)
  }

  @Test func aPassiveCallNeverRings() {
    var engine = makeEngine()
    let incoming = call("p", level: .passive)
    #expect(
      engine.handle(.call(incoming), at: t(0)) == [
        .event(.suppressed(incoming, reason: .passive)), .event(.missed(incoming, reason: .suppressed)),
        .indicator(board: "board", blink),
      ])
  }

  @Test func tokensSkipZeroWhenTheyWrap() {
    var engine = makeEngine()
    engine.tokens.next = .max
    let first = engine.handle(.call(call("a")), at: t(0))
    let second = engine.handle(.call(call("b")), at: t(1))
    #expect(first.plays.map(\.token) == [.max])
    #expect(second.plays.map(\.token) == [1])
  }

  @Test func timeNeverRunsBackwards() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(10_000))
    // A stale moment does not give the call more time than it has.
    let effects = engine.handle(.call(call("c2")), at: t(5_000))
    #expect(effects.plays.map(\.capMs) == [30_000])
    #expect(engine.nextDeadlineMs == 40_000)
  }

  @Test func aTombstoneOfForeverDoesNotOverflow() {
    var engine = makeEngine(EngineConfiguration(tombstoneMs: .max))
    _ = engine.handle(.hangup(callID: "c1"), at: t(1_000))
    #expect(engine.nextDeadlineMs == .max)
    #expect(engine.handle(.call(call("c1")), at: t(10_000_000)).plays.isEmpty)
  }
}
