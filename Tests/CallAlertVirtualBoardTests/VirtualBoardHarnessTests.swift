import CallAlertBoardCore
import CallAlertProtocol
import CallAlertVirtualBoard
import Testing

@Suite("Virtual board in virtual time")
struct VirtualBoardHarnessTests {
  let beep = Pattern(
    steps: [
      PatternStep(durationMs: 100, buzzerHz: 2_700, buzzerVolume: 200, motor: 180, leds: 1),
      PatternStep(durationMs: 200),
    ], repeatCount: 2)

  @Test func handshakeReportsTheVirtualBoardsIdentity() throws {
    var harness = VirtualLinkHarness(board: VirtualBoard())
    let hello = harness.hello()
    let info = try #require(hello)
    #expect(info.serial == Array("VB-0001".utf8))
    #expect(info.sessionVersion == 2)
    #expect(info.bootNonce == harness.board.nonce)
    #expect(info.capabilities.window == 8)
    #expect(info.table == .none)
  }

  @Test func patternStepsLandOnTheExactMillisecond() throws {
    var harness = VirtualLinkHarness(board: VirtualBoard())
    #expect(harness.hello() != nil)
    harness.run(forMs: 7)
    let sent = harness.nowMs  // instant wire: PLAY reaches the board at this very millisecond
    guard
      case .reply(_, .playing(let cap))? = harness.exchange(
        .play(PlayRequest(token: 9, capMs: 0, source: .inline(beep))))
    else {
      Issue.record("PLAY was not answered")
      return
    }
    #expect(cap == 30_000)
    harness.run(forMs: 2_000)
    let spans = harness.board.timeline.alertSpans.map { [$0.start - sent, ($0.end ?? 0) - sent] }
    #expect(spans == [[0, 100], [300, 400], [600, 700]])
    #expect(harness.board.timeline.state(at: sent + 50)?.leds == 1)
    #expect(harness.events.contains(.playEnded(PlayEndedEvent(token: 9, reason: .completed, playedMs: 900))))
  }

  @Test(arguments: [(UInt16(0), UInt64(30_000)), (60_000, 30_000), (18_000, 18_000)])
  func capStopsTheBoardExactly(requested: UInt16, expectedEnd: UInt64) throws {
    var harness = VirtualLinkHarness(board: VirtualBoard())
    #expect(harness.hello() != nil)
    let forever = Pattern(
      steps: [PatternStep(durationMs: 700, buzzerHz: 1_000, buzzerVolume: 100)], repeatCount: Pattern.repeatForever)
    let sent = harness.nowMs
    _ = harness.exchange(.play(PlayRequest(token: 1, capMs: requested, source: .inline(forever))))
    // The host keeps the lease alive, so only the cap can stop it.
    for _ in 0..<40 {
      harness.run(forMs: 1_000)
      _ = harness.exchange(.lease(ms: 3_000))
    }
    let end = try #require(harness.board.timeline.firstSilence(from: sent + 1))
    #expect(end - sent == expectedEnd)
    #expect(
      harness.events.contains {
        if case .playEnded(let e) = $0 { e.reason == .cap && e.playedMs == UInt32(expectedEnd) } else { false }
      })
  }

  @Test func aLapsedLeaseSilencesTheBoardWhenTheHostGoesQuiet() throws {
    var harness = VirtualLinkHarness(board: VirtualBoard())
    #expect(harness.hello() != nil)
    _ = harness.exchange(.lease(ms: 1_500))
    let forever = Pattern(steps: [PatternStep(durationMs: 50, motor: 200)], repeatCount: Pattern.repeatForever)
    let sent = harness.nowMs
    _ = harness.exchange(.play(PlayRequest(token: 2, capMs: 0, source: .inline(forever))))
    harness.connected = false  // the host dies: nothing more reaches the board
    harness.run(forMs: 5_000)
    let end = try #require(harness.board.timeline.firstSilence(from: sent + 1))
    #expect(end - sent == 1_500)
    #expect(!harness.board.actuators.isAlerting)
  }

  @Test func aDuplicatedPlayFrameActsOnce() throws {
    var harness = VirtualLinkHarness(board: VirtualBoard())
    #expect(harness.hello() != nil)
    harness.host.send(command: .play(PlayRequest(token: 3, capMs: 5_000, source: .inline(beep))), now: harness.nowMs)
    let frame = harness.host.takeOutput()
    harness.board.receive(frame, nowMs: harness.nowMs)
    harness.run(forMs: 150)
    harness.board.receive(frame, nowMs: harness.nowMs)  // the same bytes again, 150 ms later
    harness.run(forMs: 2_000)
    // Had the duplicate restarted the play, a second 0-100 ms span would start at 150 ms.
    #expect(harness.board.timeline.alertSpans.count == 3)
    guard case .reply(_, .status(let status))? = harness.exchange(.getStatus) else {
      Issue.record("no status")
      return
    }
    #expect(status.counters.duplicates >= 1)
  }

  @Test(arguments: [UInt64(3), 17, 99])
  func flashingOverAFaultyWireThenLosingPowerMidTransferKeepsTheOldTable(seed: UInt64) throws {
    let faults = FaultProfile(dropRate: 0.002, corruptRate: 0.002, duplicateRate: 0.002)
    var harness = VirtualLinkHarness(
      board: VirtualBoard(seed: seed), pacing: .usbSerial115200, faults: faults, seed: seed)
    #expect(harness.hello() != nil)
    let first = sampleTable(version: 1)
    guard case .reply(_, .tableCommitted(let summary))? = harness.flash(first) else {
      Issue.record("first flash did not commit")
      return
    }
    #expect(summary.version == 1)
    // Start version 2 and cut the power halfway through its data.
    let second = sampleTable(version: 2)
    let crc = PatternTableHeader.crcOf(second)
    _ = harness.exchange(.tableBegin(TableBegin(size: UInt32(second.count), crc: crc)))
    _ = harness.exchange(.tableData(offset: 0, bytes: Array(second[0..<second.count / 2])))
    harness.board.powerCut(nowMs: harness.nowMs, restoreMs: harness.nowMs + 10)
    harness.run(forMs: 20)
    let hello = harness.hello()
    let info = try #require(hello)
    #expect(info.table.version == 1)
    #expect(harness.board.bootCount == 2)
    // A re-run completes.
    guard case .reply(_, .tableCommitted(let again))? = harness.flash(second) else {
      Issue.record("second flash did not commit")
      return
    }
    #expect(again.version == 2)
    #expect(harness.toBoard.injected.total + harness.toHost.injected.total > 0)
  }

  @Test func aPacedWireCarriesBytesAtTheLineRate() {
    var wire = SimulatedWire(pacing: .usbSerial115200)
    wire.send(Array(repeating: 0x55, count: 11_520), nowMicros: 0)
    // 11 520 bytes at 10 bits each take exactly one second at 115 200 baud, plus 1 ms of latency.
    #expect(wire.receive(nowMicros: 1_000_999).count == 11_519)
    #expect(wire.receive(nowMicros: 1_001_000).count == 1)
    #expect(wire.isIdle)
  }

  @Test func faultsRepeatForASeedAndDifferAcrossSeeds() {
    func run(_ seed: UInt64) -> ([UInt8], InjectedFaults) {
      var wire = SimulatedWire(faults: FaultProfile(dropRate: 0.05, corruptRate: 0.05, duplicateRate: 0.05), seed: seed)
      wire.send((0..<4_000).map { UInt8(truncatingIfNeeded: $0) }, nowMicros: 0)
      return (wire.receive(nowMicros: 1), wire.injected)
    }
    let (a, faultsA) = run(42)
    let (b, faultsB) = run(42)
    let (c, _) = run(43)
    #expect(a == b && faultsA == faultsB)
    #expect(a != c)
    #expect(faultsA.drops > 100 && faultsA.corruptions > 100 && faultsA.duplicates > 100)
  }

  @Test func timelineLinesAreTheDocumentedJSON() {
    let entry = ActuatorTimeline.Entry(
      ms: 1_200, state: ActuatorState(buzzerHz: 2_700, buzzerVolume: 200, leds: 1, motors: [180]))
    #expect(entry.jsonLine == #"{"t_ms": 1200, "buzzer_hz": 2700, "buzzer_volume": 200, "motor": [180], "led": 1}"#)
  }

  @Test func theTimelineKeepsOnlyChanges() {
    var timeline = ActuatorTimeline()
    let on = ActuatorState(buzzerHz: 440, buzzerVolume: 9, motors: [0])
    timeline.record(.off(motorCount: 1), at: 0)
    timeline.record(on, at: 10)
    timeline.record(on, at: 20)
    timeline.record(.off(motorCount: 1), at: 30)
    timeline.record(on, at: 30)  // changed twice in one millisecond: the last state wins
    #expect(timeline.entries.map(\.ms) == [0, 10])
    #expect(timeline.alertSpans.count == 1 && timeline.alertSpans[0].end == nil)
  }

  @Test func aFullTimelineLetsItsOldestQuarterGo() {
    var timeline = ActuatorTimeline(capacity: 8)
    let on = ActuatorState(buzzerHz: 440, buzzerVolume: 9, motors: [0])
    for ms in 0..<20 { timeline.record(ms % 2 == 0 ? .off(motorCount: 1) : on, at: UInt64(ms)) }
    #expect(timeline.entries.count <= 8, "never more than its capacity")
    #expect(timeline.entries.last?.ms == 19, "the newest change is kept")
    #expect(
      timeline.entries.map(\.ms) == Array(timeline.entries.first!.ms...19), "and every change since the oldest kept")
    #expect(timeline.state(at: 1) == nil, "what went is no longer known")
    #expect(ActuatorTimeline().capacity == ActuatorTimeline.defaultCapacity)
  }

  /// Counts calls of a callback.
  final class Counter {
    var count = 0
  }

  @Test func theBoardTellsWhenTheHostHasHeardEveryEvent() throws {
    var harness = VirtualLinkHarness(board: VirtualBoard())
    #expect(harness.hello() != nil)
    harness.run(forMs: 100)
    let heard = Counter()
    harness.board.onEventsAcknowledged = { heard.count += 1 }

    _ = harness.exchange(.play(PlayRequest(token: 3, capMs: 0, source: .inline(beep))))
    harness.run(forMs: 2_000)  // the pattern ends: PLAY_ENDED is raised, sent and acknowledged
    #expect(heard.count == 1)
    #expect(harness.board.core.unacknowledgedEvents == 0)

    _ = harness.exchange(.play(PlayRequest(token: 4, capMs: 0, source: .inline(beep))))
    harness.connected = false  // the host goes deaf before this play ends
    harness.run(forMs: 2_000)
    #expect(heard.count == 1, "an event nobody acknowledged is not reported as heard")
    #expect(harness.board.core.unacknowledgedEvents == 1)

    harness.connected = true  // a board that gave up resending waits to hear the host, then sends again
    _ = harness.exchange(.ping([]))
    #expect(harness.run(untilMs: harness.nowMs + 10_000) { _ in heard.count == 2 })
    #expect(harness.board.core.unacknowledgedEvents == 0)
  }
}

extension PatternTableHeader {
  /// The table's own CRC: its last four bytes.
  static func crcOf(_ table: [UInt8]) -> UInt32 {
    UInt32(table[table.count - 4]) | UInt32(table[table.count - 3]) << 8 | UInt32(table[table.count - 2]) << 16
      | UInt32(table[table.count - 1]) << 24
  }
}
