import CallAlertProtocol
import Testing

/// A board that reboots mid-session (PROTOCOL.md §6, §15.5, §8.14): the host notices the new nonce from the
/// first board frame, old-nonce commands are refused at once (`no_session` before the new HELLO, `stale_nonce`
/// after it) and never executed, and the session resumes after HELLO.
@Suite struct LinkEndpointRestartTests {
  static let firstNonce: UInt32 = 0x5A17_C0DE
  static let secondNonce: UInt32 = 0x0BAD_F00D

  /// A session with the first board, window 4, with one LEASE answered.
  static func session() -> LinkPair {
    var pair = LinkPair(nonce: firstNonce, window: 8)
    pair.openSession(window: 4)
    pair.host.send(command: .lease(ms: 3000), now: pair.now)
    pair.hostToBoard()
    pair.boardToHost()
    return pair
  }

  /// The answer the host received for `sequence`, if exactly one.
  static func onlyAnswer(_ pair: LinkPair, _ sequence: UInt16) -> Message? {
    let answers = pair.hostRecord.answers(to: sequence)
    return answers.count == 1 ? answers[0] : nil
  }

  @Test func rebootMidSessionAsInSection15_5() throws {
    var pair = Self.session()
    let blink = Command.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 500, offMs: 500))
    // LEASE is lost on the line; the board resets (watchdog) and sends BOOT with its new nonce.
    let lease = pair.host.send(command: .lease(ms: 3000), now: pair.now)
    let leaseBytes = pair.host.takeOutput()
    pair.rebootBoard(nonce: Self.secondNonce)
    let indicator = pair.host.send(command: blink, now: pair.now)
    pair.hostToBoard()  // no session yet: refused at once
    let seen = pair.boardToHost()
    #expect(seen.first == .peerRestarted(nonce: Self.secondNonce), "the first board frame tells")
    #expect(pair.hostRecord.restarts == [Self.firstNonce, Self.secondNonce])
    #expect(pair.hostRecord.events.map(\.event) == [.boot(BootEvent(reason: .watchdog, table: .ok))])
    #expect(Self.onlyAnswer(pair, indicator) == .nak(to: MessageType.setIndicator.rawValue, Nak(.noSession)))
    #expect(pair.host.nonce == Self.secondNonce)

    // The host forgets its pending commands (the LEASE) and opens a new session.
    let forgotten = pair.host.restart(nonce: Self.secondNonce, firstSequence: pair.host.sender.nextSequence)
    #expect(forgotten == [.failed(sequence: lease, type: MessageType.lease.rawValue)])
    pair.hostToBoard()  // the BOOT acknowledgement
    #expect(pair.responder.acknowledged == [0])
    pair.openSession(window: 4)

    // A retransmission of the LEASE built before the reboot reaches the board: refused, never executed.
    pair.deliverToBoard(leaseBytes)
    let refusal = try #require(pair.boardOutputFrames.first)
    #expect(try Message.decode(refusal) == .nak(to: MessageType.lease.rawValue, Nak(.staleNonce)))
    #expect(refusal.nonce == Self.secondNonce && refusal.sequence == lease)
    #expect(pair.boardToHost().isEmpty, "an answer to nothing pending is ignored")

    // The host re-applies its state under the new nonce.
    let play = pair.host.send(command: .play(PlayRequest(token: 7, capMs: 0, source: .slot(0))), now: pair.now)
    let again = pair.host.send(command: blink, now: pair.now)
    pair.hostToBoard()
    pair.boardToHost()
    #expect(Self.onlyAnswer(pair, play) == .reply(to: .play, .playing(capMs: 30_000)))
    #expect(Self.onlyAnswer(pair, again) == .reply(to: .setIndicator, .ok))
    #expect(pair.responder.acted.map(\.command.type) == [.hello, .play, .setIndicator], "nothing old was executed")
  }

  @Test func oldNonceCommandGetsNoSessionBeforeHelloAndStaleNonceAfter() throws {
    var pair = Self.session()
    let oldFrame = Message.command(.stop(token: 7)).frame(sequence: 77, nonce: Self.firstNonce).encoded()
    pair.rebootBoard(nonce: Self.secondNonce, reason: nil)
    pair.deliverToBoard(oldFrame)
    let beforeHello = try #require(pair.boardOutputFrames.first)
    #expect(try Message.decode(beforeHello) == .nak(to: MessageType.stop.rawValue, Nak(.noSession)))
    pair.loseBoardOutput()
    pair.openSession(window: 4)
    pair.deliverToBoard(oldFrame)
    let afterHello = try #require(pair.boardOutputFrames.first)
    #expect(try Message.decode(afterHello) == .nak(to: MessageType.stop.rawValue, Nak(.staleNonce)))
    #expect(!pair.responder.acted.contains { $0.command.type == .stop })
    #expect(pair.board.receiver.expected == pair.host.sender.nextSequence, "a refusal consumes no sequence")
  }

  @Test func resetIsNeverExecutedTwiceForOneReset() throws {
    // PROTOCOL.md §8.14: the RESET's answer is lost, the board restarts, the retransmitted RESET reaches the new
    // boot and is refused with no_session.
    var pair = Self.session()
    let reset = pair.host.send(command: .reset, now: pair.now)
    pair.hostToBoard()
    #expect(pair.responder.acted.last?.command == .reset)
    pair.loseBoardOutput()
    pair.rebootBoard(nonce: Self.secondNonce, reason: .resetCommand)
    pair.hostTimesOut()
    pair.hostToBoard()
    #expect(pair.responder.acted.isEmpty, "the new boot executed nothing")
    pair.boardToHost()
    #expect(Self.onlyAnswer(pair, reset) == .nak(to: MessageType.reset.rawValue, Nak(.noSession)))
    #expect(pair.hostRecord.events.map(\.event) == [.boot(BootEvent(reason: .resetCommand, table: .ok))])
  }

  /// Regression: when the host's endpoint sees a new nonce it takes it and resets the event receiver, then
  /// acknowledges BOOT. restart(nonce:firstSequence:), which the host then calls to forget pending commands
  /// (PROTOCOL.md §6), once reset the receiver again, so a resent BOOT (its acknowledgement lost) was delivered
  /// twice. restart now keeps the receiver when the nonce is already current.
  @Test
  func eventDeliveredWithTheRestartIsNotDeliveredAgain() {
    var pair = Self.session()
    pair.host.send(command: .getStatus, now: pair.now)
    pair.loseHostOutput()
    pair.rebootBoard(nonce: Self.secondNonce)
    pair.boardToHost()  // peerRestarted, then BOOT (acknowledged)
    #expect(pair.hostRecord.events.count == 1)
    _ = pair.host.restart(nonce: Self.secondNonce, firstSequence: pair.host.sender.nextSequence)
    pair.loseHostOutput()  // the acknowledgement of BOOT is lost
    pair.now = pair.board.nextDeadline ?? pair.now
    pair.responder.handle(pair.board.poll(now: pair.now), board: &pair.board, now: pair.now)
    pair.boardToHost()  // BOOT again
    #expect(pair.hostRecord.events.count == 1, "BOOT delivered \(pair.hostRecord.events.count) times")
  }
}
