import CallAlertBoardCore
import CallAlertProtocol
import Testing

/// PROTOCOL.md §5.5 as v1.1.1 answers it: what reopens a stalled event channel (a refused HELLO, duplicates,
/// any command acted on), what a command does to events in flight that have not stalled, and how an
/// overflowing queue keeps the numbering without a gap.
@Suite("Event channel: stalls, duplicates, overflow")
struct EventChannelTests {
  /// A session whose event channel has stalled on PLAY_ENDED (the host's acknowledgements were lost), with the
  /// host heard again from then on.
  static func stalledSession() -> Bench {
    var bench = Bench()
    bench.hello()
    bench.send(play(1, tone, cap: 100))
    bench.hostMuted = true
    bench.advance(to: 2_000)
    bench.hostMuted = false
    return bench
  }

  static func playEndedFrames(_ bench: Bench) -> Int {
    bench.boardFrames.filter { $0.type == MessageType.playEnded.rawValue }.count
  }

  @Test("a HELLO refused before any session leaves the stall; the HELLO that opens one ends it (§5.5, §7)")
  func refusedHelloBeforeASession() {
    var bench = Bench(hostMuted: true)
    bench.advance(to: 2_000)
    #expect(bench.core.endpoint.sender.isPaused, "BOOT went unacknowledged through its tries")
    bench.hostMuted = false
    #expect(bench.send(.hello(Hello(minVersion: 3, maxVersion: 4))) == nak(.hello, .unsupportedVersion, 0x0201))
    #expect(bench.core.endpoint.sender.isPaused, "no session: nobody to send BOOT to")
    bench.hello()
    #expect(bench.core.endpoint.sender.isIdle, "BOOT resent with the INFO, and acknowledged")
  }

  @Test("in a session, a HELLO refused at decoding leaves the stall; one refused at step 7 ends it (§5.5, §7)")
  func refusedHelloInASession() {
    var bench = Self.stalledSession()
    #expect(bench.core.endpoint.sender.isPaused)
    let sent = Self.playEndedFrames(bench)
    #expect(bench.send(.hello(Hello(window: 0))) == nak(.hello, .badPayload, 4))
    #expect(bench.core.endpoint.sender.isPaused, "never decoded, so never acted on")
    #expect(Self.playEndedFrames(bench) == sent)
    #expect(bench.send(.hello(Hello(minVersion: 3, maxVersion: 4))) == nak(.hello, .unsupportedVersion, 0x0201))
    #expect(Self.playEndedFrames(bench) == sent + 1, "resent at once")
    #expect(bench.core.endpoint.sender.isIdle)
    #expect(bench.playEnds.map(\.token) == [1])
  }

  @Test("replayed duplicates and a repeated HELLO leave the stall; a re-executed duplicate ends it (§5.5)")
  func duplicates() {
    var bench = Bench()
    let helloSequence = bench.host.sender.nextSequence
    bench.hello()
    // A button press raises BUTTON; its acknowledgements are lost until the channel stalls.
    bench.pressWhileTheHostIsDeaf()
    #expect(bench.core.endpoint.sender.isPaused)
    let frames = bench.boardFrames.count
    bench.inject(.hello(Hello()), sequence: helloSequence)
    #expect(bench.boardFrames.count == frames + 1, "the kept INFO, and nothing else")
    #expect(bench.core.endpoint.sender.isPaused)

    let pingSequence = bench.host.sender.nextSequence
    bench.send(.ping([1]))
    #expect(!bench.core.endpoint.sender.isPaused, "a new command acted on ends the stall")
    #expect(bench.core.endpoint.sender.isIdle)
    let leaseSequence = bench.host.sender.nextSequence
    bench.send(.lease(ms: 3_000))
    bench.pressWhileTheHostIsDeaf()
    #expect(bench.core.endpoint.sender.isPaused)
    bench.inject(.lease(ms: 3_000), sequence: leaseSequence)
    #expect(bench.core.endpoint.sender.isPaused, "answered from the replay cache: not acted on")
    bench.inject(.ping([1]), sequence: pingSequence)
    #expect(!bench.core.endpoint.sender.isPaused, "an idempotent duplicate is executed again: acted on")
    #expect(bench.core.endpoint.sender.isIdle)
    #expect(bench.buttonEvents.count == 2)
  }

  @Test("a command acted on leaves events in flight alone: no resend, no fresh tries (§5.5)")
  func commandsLeaveEventsInFlightAlone() {
    var bench = Bench()
    bench.hello()
    var sequence = bench.host.sender.nextSequence
    bench.send(play(1, tone, cap: 100))
    sequence &+= 1
    bench.hostMuted = true  // from here the board hears only what the test injects
    bench.advance(to: 100)
    #expect(Self.playEndedFrames(bench) == 1)
    // A command every 50 ms: none resends PLAY_ENDED or renews its tries, so it stalls after its fifth.
    for _ in 0..<40 {
      bench.advance(by: 50)
      if bench.core.endpoint.sender.isPaused { break }
      bench.inject(.ping([UInt8(truncatingIfNeeded: sequence)]), sequence: sequence)
      sequence &+= 1
    }
    #expect(bench.core.endpoint.sender.isPaused)
    #expect(Self.playEndedFrames(bench) == 5, "its first transmission and four on its own deadlines")
    bench.advance(by: 50)
    bench.inject(.ping([0]), sequence: sequence)
    #expect(Self.playEndedFrames(bench) == 6, "stalled: the next command resends it")
  }

  @Test("an accepted HELLO resends every event in flight at once, with fresh tries, stalled or not (§7)")
  func helloResendsEventsInFlight() {
    var bench = Bench()
    let sequence = bench.host.sender.nextSequence
    bench.hello()
    bench.send(play(1, tone, cap: 100))
    bench.hostMuted = true
    bench.advance(to: 150)
    #expect(Self.playEndedFrames(bench) == 1)
    #expect(!bench.core.endpoint.sender.isPaused)
    bench.inject(.hello(Hello()), sequence: sequence &+ 7)
    #expect(Self.playEndedFrames(bench) == 2, "resent with the INFO, before its deadline")
    // Fresh tries: five transmissions counted from the HELLO's before the channel stalls.
    bench.advance(to: 2_000)
    #expect(bench.core.endpoint.sender.isPaused)
    #expect(Self.playEndedFrames(bench) == 6)
  }

  @Test("an overflowing queue drops only unnumbered events, and FAULT event_overflow takes a place (§5.5)")
  func overflowKeepsTheNumbering() throws {
    var bench = Bench()
    bench.hello(Hello(window: 1))  // BOOT (sequence 0) is acknowledged
    bench.hostMuted = true
    var sequence = bench.host.sender.nextSequence
    func command(_ bench: inout Bench, _ command: Command) {
      bench.inject(command, sequence: sequence)
      sequence &+= 1
    }
    // 18 PLAYs raise PLAY_ENDED superseded for tokens 1-17: token 1's is in flight (sequence 1), 15 wait,
    // token 17's makes 17 pending: token 2's, the oldest waiting, is dropped.
    for token: UInt32 in 1...18 { command(&bench, play(token, tone)) }
    #expect(bench.core.events.totalDrops == 1)
    bench.acknowledge(event: 1, type: .playEnded)  // room: FAULT event_overflow 1 is queued last
    command(&bench, play(19, tone))  // 16 pending with the FAULT: token 4's is dropped (token 3's is in flight)
    #expect(bench.core.events.totalDrops == 2)
    for next: UInt16 in 2...18 {
      let sent = try #require(bench.eventsSent.last)
      #expect(sent.sequence == next)
      bench.acknowledge(event: next, type: MessageType(rawValue: bench.eventFrames.last!.type)!)
    }
    let tokens = bench.eventsSent.map { sent -> String in
      switch sent.event {
      case .playEnded(let ended): "\(sent.sequence):\(ended.token)"
      case .fault(let fault): "\(sent.sequence):overflow \(fault.detail)"
      case .boot: "\(sent.sequence):boot"
      default: "\(sent.sequence):?"
      }
    }
    let expected = ["0:boot", "1:1", "2:3"] + (3...15).map { "\($0):\($0 + 2)" }
    #expect(tokens == expected + ["16:overflow 1", "17:18", "18:overflow 1"], "tokens 2 and 4 were dropped")
    #expect(bench.core.endpoint.sender.isIdle && bench.core.events.waiting.isEmpty)
  }

  @Test("a FAULT event_overflow dropped in turn hands its count to the next, itself included (§5.5)")
  func droppedOverflowReportKeepsItsCount() {
    let a = Event.button(ButtonEvent(button: 0, kind: .press, heldMs: 100))
    var queue = EventQueue(capacity: 2)
    queue.push(a, inFlight: 1)
    queue.push(a, inFlight: 1)  // the first is dropped
    let report = queue.takeOverflowReport(inFlight: 0)
    #expect(report == .fault(FaultEvent(.eventOverflow, detail: 1)))
    queue.push(report!, inFlight: 0)
    queue.push(a, inFlight: 0)  // the second press is dropped
    queue.push(a, inFlight: 0)  // the report is dropped
    #expect(queue.waiting == [a, a])
    _ = queue.popFirst()
    #expect(queue.takeOverflowReport(inFlight: 0) == .fault(FaultEvent(.eventOverflow, detail: 3)))
    #expect(queue.totalDrops == 3, "two presses and the first report: all reported in the second")
  }
}

extension Bench {
  /// A button press whose BUTTON event's acknowledgements are all lost, until the event channel stalls.
  mutating func pressWhileTheHostIsDeaf() {
    hostMuted = true
    setButtons(1)
    advance(by: 100)
    setButtons(0)
    advance(by: 2_000)
    hostMuted = false
  }

  /// Feeds the core a frame the host endpoint did not send (with the board's nonce), then lets the link settle.
  mutating func inject(_ frame: Frame) {
    var frame = frame
    frame.nonce = core.nonce
    core.receive(frame.encoded(), nowMs: now)
    exchange()
  }

  /// Feeds the core `command` under `sequence`: a duplicate, or a command the muted host endpoint cannot send.
  mutating func inject(_ command: Command, sequence: UInt16) {
    inject(Message.command(command).frame(sequence: sequence, nonce: 0))
  }

  /// Acknowledges the board's event `sequence` of `type` directly.
  mutating func acknowledge(event sequence: UInt16, type: MessageType) {
    inject(Frame(flags: .response, sequence: sequence, type: type.rawValue, nonce: 0))
  }

  /// Every event frame the board sent, retransmissions included.
  var eventFrames: [Frame] {
    boardFrames.filter { $0.flags.isEmpty && MessageType(rawValue: $0.type)?.isEvent == true }
  }

  /// The events the board sent, once each (at their first transmission), with their sequence numbers.
  var eventsSent: [(sequence: UInt16, event: Event)] {
    var seen: [UInt16] = []
    var sent: [(sequence: UInt16, event: Event)] = []
    for frame in eventFrames where !seen.contains(frame.sequence) {
      seen.append(frame.sequence)
      if case .event(let event)? = try? Message.decode(frame) { sent.append((frame.sequence, event)) }
    }
    return sent
  }
}
