import CallAlertProtocol
import Testing

/// Scripted LinkEndpoint exchanges, each losing exactly the frames it names: duplicates, gaps, replays, event
/// acknowledgement, stalls, notifications, unreadable frames and HELLO (PROTOCOL.md §5, §7).
@Suite struct LinkEndpointBehaviourTests {
  static let nonce: UInt32 = 0x5A17_C0DE

  /// A pair with a session open at `window`.
  static func session(window: Int) -> LinkPair {
    var pair = LinkPair(nonce: nonce, window: 8)
    pair.openSession(window: window)
    return pair
  }

  /// The command part of what the board acted on, with sequences.
  static func acted(_ pair: LinkPair) -> [UInt16] { pair.responder.acted.map(\.sequence) }

  @Test func duplicateCommandIsReplayedNotActedOnAgain() {
    var pair = Self.session(window: 1)
    let play = pair.host.send(command: .play(PlayRequest(token: 7, capMs: 0, source: .slot(0))), now: pair.now)
    pair.hostToBoard()
    pair.loseBoardOutput()
    pair.hostTimesOut()
    pair.hostToBoard()
    pair.boardToHost()
    #expect(pair.responder.actionCounts[play] == 1)
    #expect(pair.hostRecord.answers(to: play) == [.reply(to: .play, .playing(capMs: 30_000))])
    #expect(pair.board.receiver.duplicates == 1)
  }

  @Test func repeatedIdempotentCommandRunsAgainWithoutReplayingLaterOnes() {
    // PROTOCOL.md §5.4: an idempotent duplicate is executed again and `expected` is unchanged (hdlcpp #42).
    var pair = Self.session(window: 4)
    let status = pair.host.send(command: .getStatus, now: pair.now)
    let play = pair.host.send(command: .play(PlayRequest(token: 7, capMs: 0, source: .slot(0))), now: pair.now)
    pair.hostToBoard()
    pair.loseBoardOutput()
    pair.hostTimesOut()  // go-back-N: GET_STATUS and PLAY again
    pair.hostToBoard()
    pair.boardToHost()
    #expect(pair.responder.acted.filter { $0.sequence == status }.count == 2, "GET_STATUS may run twice")
    #expect(pair.responder.actionCounts[play] == 1, "PLAY must not")
    #expect(pair.hostRecord.answers(to: status).count == 1 && pair.hostRecord.answers(to: play).count == 1)
    #expect(pair.board.receiver.expected == play &+ 1)
  }

  @Test func lostFrameInABurstCostsOneFastRetransmit() {
    var pair = Self.session(window: 4)
    let sequences = (0..<4).map { pair.host.send(command: .lease(ms: UInt16(1000 + $0)), now: pair.now) }
    pair.hostToBoard(losing: [0])  // the board refuses the other three with sequence_gap naming the first
    #expect(pair.boardOutputFrames.map { $0.flags.rawValue } == [3, 3, 3])
    pair.boardToHost()
    #expect(pair.host.sender.retransmissions == 4, "one go-back-N burst, not one per gap NAK")
    pair.hostToBoard()
    pair.boardToHost()
    #expect(Array(Self.acted(pair).dropFirst()) == sequences, "acted on once each, in order")
    for sequence in sequences { #expect(pair.hostRecord.answers(to: sequence) == [.reply(to: .lease, .ok)]) }
    #expect(pair.host.sender.isIdle && pair.hostRecord.failures.isEmpty)
  }

  /// Regression: the sender once admitted a new frame whenever fewer than `window` frames were unanswered. After
  /// one lost answer to A, the answers to B, C, D let E, F, G out, the board's `expected` reached A + 7, and A's
  /// retransmissions were dropped as stale: A ran but failed at the host. The window now counts the span from
  /// the oldest unanswered frame (PROTOCOL.md §5.3 rule 1), so A's retransmission gets its kept answer.
  @Test
  func lostAnswerOutsideTheWindowIsNeverReplayed() {
    var pair = Self.session(window: 4)
    let commands: [Command] = [
      .lease(ms: 3000), .setIndicator(IndicatorSetting(mode: .on)), .stop(token: 7), .lease(ms: 2000),
      .setIndicator(IndicatorSetting(mode: .off)), .stop(token: 8), .lease(ms: 1000),
    ]
    let sequences = commands.map { pair.host.send(command: $0, now: pair.now) }
    pair.hostToBoard()  // A, B, C, D
    pair.boardToHost(losing: [0])  // A's answer is lost; B, C, D make room for E, F, G
    pair.hostToBoard()
    pair.boardToHost()
    pair.settle()
    #expect(pair.responder.actionCounts[sequences[0]] == 1, "A was executed once")
    #expect(pair.hostRecord.answers(to: sequences[0]).count == 1, "A's kept answer is replayed")
    #expect(pair.hostRecord.failures.isEmpty, "\(pair.hostRecord.failures)")
  }

  /// Answers complete in the order they arrive: a replayed answer to an earlier command can come after the
  /// answer to a later one (PROTOCOL.md §5.3 rule 3 matches answers individually; §13.2 asks hosts to accept
  /// answers and events in either order). Hosts must not assume sequence order.
  @Test func answersCompleteInArrivalOrder() {
    var pair = Self.session(window: 4)
    let play = pair.host.send(command: .play(PlayRequest(token: 7, capMs: 0, source: .slot(0))), now: pair.now)
    let stop = pair.host.send(command: .stop(token: 7), now: pair.now)
    pair.hostToBoard()
    pair.boardToHost(losing: [0])
    pair.settle()
    let order = pair.hostRecord.answers.map(\.sequence).filter { $0 == play || $0 == stop }
    #expect(order == [stop, play])
    #expect(Self.acted(pair).suffix(2) == [play, stop], "the board still acted in order")
  }

  /// A board fed a whole read before it answers (fixed in 54864da: the receiver used to move past a command only
  /// when it was answered, so a duplicate in the same read was delivered, and acted on, twice).
  @Test func boardFedAChunkActsOnADuplicateInItOnce() {
    var pair = Self.session(window: 4)
    let play = pair.host.send(command: .play(PlayRequest(token: 7, capMs: 0, source: .slot(0))), now: pair.now)
    let frame = pair.host.takeOutput()
    let deliveries = pair.board.receive(frame + frame, now: pair.now)  // the line doubled it; one read holds both
    let commands = deliveries.filter { if case .command = $0 { true } else { false } }
    #expect(commands == [.command(sequence: play, .play(PlayRequest(token: 7, capMs: 0, source: .slot(0))))])
    pair.responder.handle(deliveries, board: &pair.board, now: pair.now)
    #expect(pair.boardOutputFrames.count == 1, "one answer: the copy arrived before it and was dropped")
    #expect(pair.board.receiver.duplicates == 1)
  }

  /// Same cause: two pipelined commands in one read used to draw a sequence_gap NAK for the second.
  @Test func boardFedAChunkAcceptsEveryCommandInIt() {
    var pair = Self.session(window: 4)
    let lease = pair.host.send(command: .lease(ms: 3000), now: pair.now)
    let stop = pair.host.send(command: .stop(token: 7), now: pair.now)
    let deliveries = pair.board.receive(pair.host.takeOutput(), now: pair.now)
    #expect(deliveries == [.command(sequence: lease, .lease(ms: 3000)), .command(sequence: stop, .stop(token: 7))])
    pair.responder.handle(deliveries, board: &pair.board, now: pair.now)
    #expect(!pair.boardOutputFrames.contains { $0.flags.contains(.nak) }, "no sequence_gap for an in-order command")
  }

  @Test func duplicatesAnsweredLaterInTheSameReadAreReplayed() {
    var pair = Self.session(window: 4)
    let play = pair.host.send(command: .play(PlayRequest(token: 7, capMs: 0, source: .slot(0))), now: pair.now)
    let stop = pair.host.send(command: .stop(token: 7), now: pair.now)
    let bytes = pair.host.takeOutput()
    pair.deliverToBoard(bytes)
    pair.deliverToBoard(bytes)  // both again, after their answers were given: replayed, not acted on
    #expect(pair.responder.actionCounts[play] == 1 && pair.responder.actionCounts[stop] == 1)
    #expect(pair.boardOutputFrames.count == 4, "two answers, then both replayed")
    #expect(pair.board.receiver.duplicates == 2)
  }

  @Test func unreadableCommandIsRefusedAndItsNakTakesItsSequence() throws {
    var pair = Self.session(window: 1)
    let sequence = pair.host.sender.nextSequence
    // A LEASE of 50 ms, which the host API would never build: the board refuses it with bad_payload, offset 0.
    let bad = Frame(sequence: sequence, type: MessageType.lease.rawValue, nonce: Self.nonce, payload: [50, 0])
    let deliveries = pair.deliverToBoard(bad.encoded())
    #expect(deliveries.count == 1)
    guard case .unreadable(let error)? = deliveries.first else {
      Issue.record("expected unreadable, got \(deliveries)")
      return
    }
    #expect(error == .payload(type: 0x12, PayloadError(.invalidValue, field: "lease_ms", offset: 0)))
    let nak = try #require(pair.boardOutputFrames.first)
    #expect(try Message.decode(nak) == .nak(to: 0x12, Nak(.badPayload, detail: 0)))
    pair.loseBoardOutput()
    #expect(pair.deliverToBoard(bad.encoded()).isEmpty, "a duplicate is not delivered again")
    #expect(pair.boardOutputFrames == [nak], "its NAK is replayed")
    pair.loseBoardOutput()
    // The NAK took the sequence: the next command is the next one.
    pair.host.restartNumbering(after: sequence)
    let next = pair.host.send(command: .getStatus, now: pair.now)
    pair.hostToBoard()
    pair.boardToHost()
    #expect(pair.hostRecord.answers(to: next).count == 1)
  }

  @Test func unknownCommandTypeIsRefusedWithItsTypeByte() throws {
    var pair = Self.session(window: 1)
    let frame = Frame(sequence: pair.host.sender.nextSequence, type: 0x7E, nonce: Self.nonce)
    pair.deliverToBoard(frame.encoded())
    let nak = try #require(pair.boardOutputFrames.first)
    #expect(nak.type == 0x7E && nak.flags == [.response, .nak])
    #expect(try Message.decode(nak) == .nak(to: 0x7E, Nak(.unknownType, detail: 0x7E)))
  }

  @Test func eventIsDeliveredOnceAndItsAcknowledgementReplayed() {
    var pair = Self.session(window: 1)
    let event = Event.button(ButtonEvent(button: 0, kind: .press, heldMs: 120))
    let sequence = pair.board.send(event: event, now: pair.now)
    pair.boardToHost()
    pair.loseHostOutput()  // the acknowledgement is lost
    pair.now = pair.board.nextDeadline ?? pair.now
    pair.responder.handle(pair.board.poll(now: pair.now), board: &pair.board, now: pair.now)
    pair.boardToHost()  // the resent event: acknowledged again, not delivered again
    pair.hostToBoard()
    #expect(pair.hostRecord.events.map(\.sequence) == [sequence])
    #expect(pair.responder.acknowledged == [sequence])
    #expect(pair.board.sender.isIdle)
  }

  @Test func unreadableEventIsAcknowledgedSoTheChannelMovesOn() throws {
    var pair = Self.session(window: 1)
    let bad = Frame(sequence: 0, type: MessageType.boot.rawValue, nonce: Self.nonce, payload: [9, 0])
    let deliveries = pair.deliverToHost(bad.encoded())
    #expect(deliveries.contains { if case .unreadable = $0 { true } else { false } })
    var decoder = FrameDecoder()
    let acknowledgement = decoder.feed(pair.host.takeOutput())
    #expect(acknowledgement == [.frame(Frame(flags: .response, sequence: 0, type: 0x80, nonce: Self.nonce))])
  }

  @Test func stalledEventsAreResentAfterTheNextHello() {
    var pair = LinkPair(nonce: Self.nonce, window: 8)
    let boot = pair.board.send(event: .boot(BootEvent(reason: .powerOn, table: .ok)), now: 0)
    var stalled = false
    while !stalled, let deadline = pair.board.nextDeadline {
      pair.loseBoardOutput()
      pair.now = deadline
      stalled = pair.board.poll(now: pair.now) == [.eventsStalled]
    }
    #expect(stalled)
    #expect(pair.board.nextDeadline == nil && pair.board.sender.isPaused)
    pair.loseBoardOutput()
    pair.openSession(window: 1)  // HELLO reopens the event channel: BOOT comes again with fresh tries
    pair.hostToBoard()
    #expect(pair.hostRecord.events.map(\.sequence) == [boot])
    #expect(pair.responder.acknowledged == [boot])
  }

  @Test func notificationsAreNumberedFromOneAndNeverAnswered() {
    var pair = Self.session(window: 1)
    let traces = [
      ActuatorTrace(boardMs: 10, state: ActuatorState(buzzerHz: 880, buzzerVolume: 255, motors: [0])),
      ActuatorTrace(boardMs: 410, state: .off(motorCount: 1)),
    ]
    for trace in traces { pair.board.notify(trace) }
    #expect(pair.boardOutputFrames.map(\.sequence) == [1, 2])
    #expect(pair.boardOutputFrames.allSatisfy { $0.flags == .notify })
    let deliveries = pair.boardToHost()
    #expect(deliveries == traces.map { .actuators($0) })
    #expect(!pair.host.hasOutput && pair.board.sender.isIdle)
  }

  @Test func repeatedHelloIsAnsweredWithTheSameInfoAndNothingElse() {
    var pair = LinkPair(nonce: Self.nonce, window: 8)
    let hello = pair.host.send(command: .hello(Hello(window: 4)), now: 0)
    pair.hostToBoard()
    let info = pair.boardOutputFrames
    pair.loseBoardOutput()
    pair.hostTimesOut()
    #expect(pair.hostToBoard().isEmpty, "PROTOCOL.md §7: a duplicate HELLO is not a new HELLO")
    #expect(pair.boardOutputFrames == info)
    pair.boardToHost()
    #expect(pair.hostRecord.answers(to: hello).count == 1)
    #expect(pair.responder.acted.map(\.sequence) == [hello])
    #expect(pair.board.receiver.duplicates == 1)
  }

  @Test func helloMidSessionRestartsTheCommandChannel() {
    var pair = Self.session(window: 4)
    pair.host.send(command: .lease(ms: 3000), now: pair.now)
    pair.hostToBoard()
    pair.boardToHost()
    // A host restarting its numbering (a new process) opens a new session with any sequence, and (PROTOCOL.md §7)
    // waits for INFO before sending anything else.
    pair.host.restartNumbering(after: 0x7FF0)
    let hello = pair.host.send(command: .hello(Hello(window: 4)), now: pair.now)
    pair.hostToBoard()
    pair.boardToHost()
    let lease = pair.host.send(command: .lease(ms: 2000), now: pair.now)
    pair.hostToBoard()
    pair.boardToHost()
    #expect(pair.responder.acted.suffix(2).map(\.sequence) == [hello, lease])
    #expect(pair.hostRecord.answers(to: lease) == [.reply(to: .lease, .ok)])
    #expect(pair.board.receiver.expected == lease &+ 1)
  }

  @Test func nonceChangeIsReportedOncePerNonce() {
    var host = LinkEndpoint(role: .host)
    let event = Message.event(.button(ButtonEvent(button: 0, kind: .press, heldMs: 1)))
    var deliveries: [LinkEndpoint.Delivery] = []
    for (sequence, nonce) in [(0, 0xA), (1, 0xA), (0, 0xB), (1, 0xB)] as [(UInt16, UInt32)] {
      deliveries += host.receive(event.frame(sequence: sequence, nonce: nonce).encoded(), now: 0)
    }
    let restarts = deliveries.compactMap { if case .peerRestarted(let nonce) = $0 { nonce } else { nil } }
    #expect(restarts == [0xA, 0xB])
    #expect(deliveries.filter { if case .event = $0 { true } else { false } }.count == 4, "event sequence restarts")
    #expect(host.nonce == 0xB)
  }
}

extension LinkEndpoint {
  /// (Host, tests) Drops pending commands and numbers the next command `sequence + 1`, keeping the nonce.
  mutating func restartNumbering(after sequence: UInt16) {
    _ = restart(nonce: nonce, firstSequence: sequence &+ 1)
  }
}
