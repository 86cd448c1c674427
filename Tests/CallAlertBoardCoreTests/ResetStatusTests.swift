import CallAlertBoardCore
import CallAlertProtocol
import Testing

@Suite("RESET and GET_STATUS")
struct ResetStatusTests {
  @Test("RESET is answered, silences the board, and the next boot has a new nonce and reason")
  func reset() {
    var bench = Bench.booted(on: TableTests.flashWithA)
    bench.send(play(1))
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .on)))
    let oldNonce = bench.core.nonce
    #expect(bench.send(.reset) == reply(.reset, .ok))
    #expect(bench.core.resetRequested)
    #expect(bench.core.actuators == off, "nothing rings while the board restarts")
    #expect(bench.core.nextWakeMs == nil)
    #expect(bench.send(.stop(token: 1)) == nil, "a resetting board ignores input")
    bench.advance(to: 10_000)
    #expect(bench.playEnds.isEmpty, "the restart, not a PLAY_ENDED, tells the host the play is over")

    bench.core = Core(
      configuration: Bench.configuration, hardware: RecordingHardware(seed: 4_242), flash: bench.core.flash,
      nowMs: bench.now, bootReason: .resetCommand)
    bench.exchange()
    // The host application starts over on a restart: what it had in flight died with the old boot.
    _ = bench.host.restart(nonce: bench.core.nonce, firstSequence: 0)
    #expect(bench.core.nonce != oldNonce)
    #expect(bench.restarts.last == bench.core.nonce)
    #expect(bench.events.last?.event == .boot(BootEvent(reason: .resetCommand, table: .ok)))
    #expect(bench.send(.getStatus) == nak(.getStatus, .noSession), "a new boot needs a new HELLO")
    guard case .reply(_, .info(let info))? = bench.hello() else {
      Issue.record("no INFO after the restart")
      return
    }
    #expect(info.bootNonce == bench.core.nonce)
    #expect(info.table == summary(of: TableTests.tableA, version: 1))
  }

  @Test("commands in the same bytes after RESET are left for the next boot")
  func resetStopsProcessing() {
    var bench = Bench()
    bench.hello()
    bench.host.apply(SessionTerms(version: 1, maxPayload: 1_024, window: 8))
    bench.host.send(command: .reset, now: 0)
    bench.host.send(command: play(1), now: 0)
    bench.core.receive(bench.host.takeOutput(), nowMs: 0)
    #expect(bench.core.resetRequested)
    #expect(bench.core.playback == nil)
  }

  @Test("GET_STATUS reports the play, lease, actuators, indicator, transfer and counters")
  func status() {
    var bench = Bench.booted(on: TableTests.flashWithA)
    bench.advance(to: 1_000)
    bench.send(.play(PlayRequest(token: 77, capMs: 5_000, source: .slot(0))))
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 10, offMs: 10)))
    let b = TableTests.tableB
    bench.send(.tableBegin(TableBegin(size: UInt32(b.count), crc: tableCRC(b))))
    bench.send(.tableData(offset: 0, bytes: Array(b[0..<32])))
    bench.advance(to: 1_700)
    bench.send(.lease(ms: 3_000))
    bench.advance(to: 2_000)

    // A corrupt frame, a framing error and a duplicate for the counters.
    var raw = Frame(sequence: 99, type: MessageType.ping.rawValue, nonce: bench.core.nonce).rawBytes()
    raw[raw.count - 1] ^= 0xFF
    var corrupt: [UInt8] = []
    COBS.encode(raw, into: &corrupt)
    corrupt.append(0)
    bench.core.receive(corrupt + [0x02, 0x01, 0x00], nowMs: bench.now)
    bench.host.send(command: .ping([1]), now: bench.now)
    let ping = bench.host.takeOutput()
    bench.core.receive(ping + ping, nowMs: bench.now)
    bench.hostReceive(bench.core.takeOutput())
    bench.exchange()

    guard case .reply(_, .status(let status))? = bench.send(.getStatus) else {
      Issue.record("no STATUS")
      return
    }
    #expect(status.uptimeMs == 2_000)
    #expect(status.token == 77 && status.slot == 0 && !status.inline)
    #expect(status.elapsedMs == 1_000)
    #expect(status.capRemainingMs == 4_000)
    #expect(status.leaseRemainingMs == 2_700)
    #expect(status.actuators == bench.core.actuators)
    #expect(status.actuators.buzzerHz == 0, "2 000 is 1 000 into the ring (400 on, 200 off): a pause")
    #expect(status.indicatorMode == IndicatorMode.blink.rawValue)
    #expect(status.transferActive && status.transferReceived == 32 && status.transferSize == UInt32(b.count))
    #expect(status.counters.crcErrors == 1)
    #expect(status.counters.framingErrors == 1)
    #expect(status.counters.overlong == 0)
    #expect(status.counters.duplicates == 1)
    #expect(status.counters.framesOK == bench.hostFramesDelivered + 2, "every host frame, and both PINGs fed directly")
    #expect(status.counters.faults == 0)
  }

  @Test("GET_STATUS while idle, and for an inline play")
  func statusIdleAndInline() {
    var bench = Bench()
    bench.hello()
    bench.advance(to: 250)
    guard case .reply(_, .status(let idle))? = bench.send(.getStatus) else {
      Issue.record("no STATUS")
      return
    }
    #expect(idle.token == 0 && idle.slot == nil && !idle.inline)
    #expect(idle.elapsedMs == 0 && idle.capRemainingMs == 0 && idle.leaseRemainingMs == 0)
    #expect(!idle.transferActive)
    bench.send(play(3, cap: 700))
    bench.advance(to: 400)
    guard case .reply(_, .status(let playing))? = bench.send(.getStatus) else {
      Issue.record("no STATUS")
      return
    }
    #expect(playing.token == 3 && playing.inline && playing.slot == nil)
    #expect(playing.elapsedMs == 150 && playing.capRemainingMs == 550)
  }
}

@Suite("Events")
struct EventTests {
  @Test("an unacknowledged event is retransmitted at its deadlines until the tries run out, then on HELLO")
  func retransmission() {
    var bench = Bench(hostMuted: true)
    let bootFrames = { (bench: Bench) in bench.boardFrames.filter { $0.type == MessageType.boot.rawValue }.count }
    #expect(bootFrames(bench) == 1)
    bench.advance(to: 10_000)
    #expect(bootFrames(bench) == LinkTiming.standard.maxTries)
    #expect(bench.core.endpoint.sender.isPaused)
    #expect(bench.core.nextWakeMs == nil, "a stalled link needs no wake-ups")
    bench.hostMuted = false
    bench.hello()
    #expect(bootFrames(bench) == LinkTiming.standard.maxTries + 1)
    #expect(bench.core.endpoint.sender.isIdle)
    bench.advance(to: 20_000)
    #expect(bootFrames(bench) == LinkTiming.standard.maxTries + 1, "acknowledged: not sent again")
    #expect(bench.events.count == 1, "the host saw BOOT once")
  }

  @Test("a PLAY_ENDED whose acknowledgement is lost is sent again until one gets through")
  func retransmitUntilAcked() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1, tone, cap: 1_000))
    bench.hostMuted = true
    bench.advance(to: 1_250)
    let ends = { (bench: Bench) in bench.boardFrames.filter { $0.type == MessageType.playEnded.rawValue }.count }
    #expect(ends(bench) == 3, "sent at 1 000, again at about 1 100 and 1 200")
    bench.hostMuted = false
    bench.advance(to: 5_000)
    #expect(ends(bench) == 4)
    #expect(bench.core.endpoint.sender.isIdle)
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .cap, playedMs: 1_000)])
  }

  @Test("stalled events are resent as soon as a command of the session gets through, without a HELLO")
  func resumeOnCommand() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1, tone, cap: 1_000))
    bench.hostMuted = true
    bench.advance(to: 5_000)
    #expect(bench.core.endpoint.sender.isPaused)
    bench.hostMuted = false
    #expect(bench.send(.lease(ms: 3_000)) == reply(.lease, .ok))
    #expect(bench.core.endpoint.sender.isIdle)
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .cap, playedMs: 1_000)])
  }

  @Test("events beyond 16 pending drop the oldest (never BOOT) and are reported with FAULT event_overflow")
  func overflow() {
    var bench = Bench(hostMuted: true)
    bench.advance(to: 5_000)  // BOOT stalls in flight
    for press in 0..<20 {
      bench.setButtons(1)
      bench.advance(by: UInt64(50 + press))
      bench.setButtons(0)
      bench.advance(by: 100)
    }
    #expect(bench.core.events.waiting.count == 15)
    #expect(bench.core.events.totalDrops == 5)
    bench.hostMuted = false
    bench.hello()
    bench.advance(by: 1_000)
    let kinds = bench.events.map(\.event)
    #expect(kinds.first == .boot(BootEvent(reason: .powerOn, table: .none)))
    #expect(bench.buttonEvents.map(\.event.heldMs) == (5..<20).map { UInt16(50 + $0) }, "the oldest five were dropped")
    #expect(kinds.last == .fault(FaultEvent(.eventOverflow, detail: 5)))
    #expect(kinds.count == 17)
    #expect(bench.core.faultCount == 1)
    #expect(bench.core.endpoint.sender.isIdle && bench.core.events.waiting.isEmpty)
  }

  @Test("the queue keeps BOOT and drops the oldest other event")
  func queueKeepsBoot() {
    var queue = EventQueue(capacity: 4)
    let button = { (held: UInt16) in Event.button(ButtonEvent(button: 0, kind: .press, heldMs: held)) }
    queue.push(.boot(BootEvent(reason: .powerOn, table: .ok)), inFlight: 0)
    for held in 1...5 { queue.push(button(UInt16(held)), inFlight: 0) }
    #expect(queue.waiting == [.boot(BootEvent(reason: .powerOn, table: .ok)), button(3), button(4), button(5)])
    #expect(queue.takeOverflowReport(inFlight: 0) == nil, "no room yet")
    _ = queue.popFirst()
    #expect(queue.takeOverflowReport(inFlight: 0) == .fault(FaultEvent(.eventOverflow, detail: 2)))
    #expect(queue.takeOverflowReport(inFlight: 0) == nil, "reported once")
    queue.push(button(6), inFlight: 4)
    #expect(queue.waiting == [button(4), button(5), button(6)], "in-flight events count toward the bound")
    #expect(queue.totalDrops == 3)
  }

  @Test("events are sent several at a time once the window opens, in order")
  func windowedEvents() {
    var bench = Bench()
    bench.hello()
    for token in UInt32(1)...10 { bench.send(play(token, tone)) }
    bench.advance(by: 4_000)
    #expect(bench.playEnds.map(\.token) == Array(1...10))
    #expect(bench.playEnds.map(\.reason) == Array(repeating: .superseded, count: 9) + [.lease])
  }
}

@Suite("Player")
struct PlayerTests {
  static let steps = [step(10, motor: 1), step(20, motor: 2), step(30, motor: 3)]
  /// Repeat counts and the lengths they give: 60 ms for the first pass, 50 ms per extra pass over steps 1-2.
  static let repeatLengths: [(UInt8, UInt64)] = [(0, 60), (1, 110), (3, 210), (254, 60 + 254 * 50)]

  @Test(
    "repeat counts extra passes over loop_start ..< count after the first full pass",
    arguments: repeatLengths)
  func repeats(count: UInt8, length: UInt64) {
    var player = Player(
      pattern: Pattern(steps: Self.steps, repeatCount: count, loopStart: 1), startMs: 1_000, capMs: 30_000)
    #expect(!player.advance(to: 1_000 + length - 1).isEnd)
    #expect(player.advance(to: 1_000 + length) == .completed(atMs: 1_000 + length))
    #expect(player.nextBoundaryMs == nil)
  }

  @Test("the step at every millisecond follows the cumulative durations")
  func stepsByTime() {
    var player = Player(pattern: Pattern(steps: Self.steps, repeatCount: 1, loopStart: 1), startMs: 0, capMs: 30_000)
    var indices: [Int] = []
    for ms in UInt64(0)..<110 {
      guard case .step(let index) = player.advance(to: ms) else { break }
      indices.append(index)
    }
    let expected =
      Array(repeating: 0, count: 10) + Array(repeating: 1, count: 20) + Array(repeating: 2, count: 30)
      + Array(repeating: 1, count: 20) + Array(repeating: 2, count: 30)
    #expect(indices == expected)
  }

  @Test("one late jump lands where small steps do")
  func lateJump() {
    let pattern = Pattern(steps: Self.steps, repeatCount: Pattern.repeatForever, loopStart: 2)
    var jumping = Player(pattern: pattern, startMs: 0, capMs: 30_000)
    var walking = Player(pattern: pattern, startMs: 0, capMs: 30_000)
    for ms in stride(from: UInt64(0), through: 12_345, by: 7) { walking.advance(to: ms) }
    #expect(jumping.advance(to: 12_345) == walking.position)
    #expect(jumping.nextBoundaryMs == walking.nextBoundaryMs)
    #expect(jumping.nextBoundaryMs == 12_360, "30 + 30k ms: the boundary after 12 345")
  }

  @Test("the cap ends a looping pattern at exactly start + cap; a cap of 0 ends it at once")
  func capEnds() {
    var player = Player(
      pattern: Pattern(steps: Self.steps, repeatCount: Pattern.repeatForever), startMs: 5, capMs: 1_000)
    #expect(!player.advance(to: 1_004).isEnd)
    #expect(player.nextBoundaryMs == 1_005)
    #expect(player.advance(to: 9_999) == .capped(atMs: 1_005))
    let zero = Player(pattern: Pattern(steps: Self.steps), startMs: 5, capMs: 0)
    #expect(zero.position == .capped(atMs: 5))
  }
}

extension Player.Position {
  var isEnd: Bool {
    if case .step = self { return false }
    return true
  }
}
