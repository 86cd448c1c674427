import CallAlertProtocol
import Testing

/// ReliableSender: sequence numbering, the window, go-back-N retransmission on timeout, giving up after maxTries,
/// resuming, and fast retransmission on a sequence-gap NAK.
@Suite struct ReliableSenderTests {
  /// Three tries, 100 ms plus line time.
  static let timing = LinkTiming(baseTimeoutMs: 100, bytesPerMs: 11, maxTries: 3)

  /// A PING frame numbered by the sender.
  static func ping(_ tag: UInt8) -> Frame {
    Frame(sequence: 0, type: MessageType.ping.rawValue, nonce: 1, payload: [tag])
  }

  /// The board's answer to the frame with `sequence`.
  static func pong(_ sequence: UInt16) -> Frame {
    Frame(flags: .response, sequence: sequence, type: MessageType.ping.rawValue, nonce: 1, payload: [0xEE])
  }

  /// The board's sequence-gap NAK to the frame with `sequence`, naming the one it expected.
  static func gapNak(_ sequence: UInt16, expected: UInt16) -> Frame {
    Message.nak(to: MessageType.ping.rawValue, Nak(.sequenceGap, detail: UInt32(expected))).frame(
      sequence: sequence, nonce: 1)
  }

  /// The sequences of the frames in `bytes`, in order.
  static func sequences(in bytes: [UInt8]) -> [UInt16] {
    var decoder = FrameDecoder()
    return decoder.feed(bytes).map {
      guard case .frame(let frame) = $0 else { return 0xDEAD }
      return frame.sequence
    }
  }

  @Test func sequencesStartAtTheFirstAndWrapAfterFFFF() {
    var sender = ReliableSender(window: 4, timing: Self.timing, firstSequence: 0xFFFE)
    var out: [UInt8] = []
    let assigned = (0..<3).map { sender.send(Self.ping(UInt8($0)), now: 0, into: &out) }
    #expect(assigned == [0xFFFE, 0xFFFF, 0x0000])
    #expect(Self.sequences(in: out) == assigned, "the frames on the wire carry the assigned sequences")
    #expect(sender.nextSequence == 1)
  }

  @Test func windowLimitsWhatIsInFlightAndAnAnswerMakesRoom() {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<3 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    #expect(Self.sequences(in: out) == [0, 1])
    #expect(sender.inFlightCount == 2 && sender.queuedCount == 1)
    out.removeAll()
    let completion = sender.receive(response: Self.pong(0), now: 5, into: &out)
    #expect(completion == .answered(sequence: 0, response: Self.pong(0)))
    #expect(Self.sequences(in: out) == [2], "the queued frame goes out when the window has room")
    #expect(sender.inFlightCount == 2 && sender.queuedCount == 0)
    #expect(sender.pendingFrames.map(\.sequence) == [1, 2])
  }

  @Test func deadlineAllowsForTheBytesAheadOfTheAnswer() {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    sender.send(Self.ping(0), now: 1000, into: &out)
    let wire = out.count
    #expect(sender.nextDeadline == 1000 + 100 + UInt64(2 * wire / 11))
    sender.send(Self.ping(1), now: 1000, into: &out)
    #expect(sender.nextDeadline == 1000 + 100 + UInt64(2 * wire / 11), "the earliest deadline")
    #expect(LinkTiming.standard.timeout(bytesAhead: 1100) == 100 + 200)
  }

  @Test func deadlinesCountTheDataOfTableReadAnswersAhead() throws {
    // PROTOCOL.md §5.3: four 1 024-byte reads in flight; the answers ahead of the fourth hold the line.
    var sender = ReliableSender(window: 4, timing: .standard)
    var out: [UInt8] = []
    for index in 0..<4 {
      let read = TableRead(area: .active, offset: UInt32(index * 1_024), length: 1_024)
      sender.send(Message.command(.tableRead(read)).frame(sequence: 0, nonce: 1), now: 0, into: &out)
    }
    let wire = out.count / 4
    #expect(wire == 24, "a TABLE_READ frame is 24 bytes on the wire")
    #expect(sender.nextDeadline == 290, "the first alone: 100 + 2 × 1 048 / 11")
    for sequence: UInt16 in 0..<3 {
      let answer = Message.reply(to: .tableRead, .tableBytes(Array(repeating: 0, count: 1_024)))
      _ = sender.receive(response: answer.frame(sequence: sequence, nonce: 1), now: 10, into: &out)
    }
    #expect(sender.nextDeadline == 862, "the fourth: 100 + 2 × 4 × 1 048 / 11")
    var pings = ReliableSender(window: 4, timing: .standard)
    pings.send(Self.ping(0), now: 0, into: &out)
    #expect(pings.nextDeadline == 103, "frames whose answers carry no data count only themselves")
  }

  @Test func timingForABaudRateCountsThatLinesBytesPerMillisecond() {
    #expect(LinkTiming(baudRate: 115_200) == .standard)
    #expect(LinkTiming(baudRate: 38_400).bytesPerMs == 3)
    #expect(LinkTiming(baudRate: 9_600).bytesPerMs == 1, "at least 1")
    #expect(LinkTiming(baudRate: 300).bytesPerMs == 1)
    // A 1 045-byte frame at 9 600 baud takes 1.09 s each way: its deadline allows for both.
    #expect(LinkTiming(baudRate: 9_600).timeout(bytesAhead: 1_045) == 100 + 2_090)
  }

  @Test func timeoutRetransmitsEverythingFromTheOldestOverdueFrame() throws {
    var sender = ReliableSender(window: 3, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<3 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    out.removeAll()
    _ = sender.receive(response: Self.pong(1), now: 10, into: &out)
    let deadline = try #require(sender.nextDeadline)
    #expect(sender.poll(now: deadline - 1, into: &out).isEmpty)
    #expect(out.isEmpty, "nothing is resent before the deadline")
    #expect(sender.poll(now: deadline, into: &out).isEmpty)
    #expect(Self.sequences(in: out) == [0, 2], "go-back-N over what is still in flight")
    #expect(sender.retransmissions == 2)
    #expect(try #require(sender.nextDeadline) > deadline)
  }

  @Test func exhaustedTriesFailEverythingInFlightAndPause() throws {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<3 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    var transmissions = Self.sequences(in: out)
    var failures: [ReliableSender.Completion] = []
    while failures.isEmpty, let deadline = sender.nextDeadline {
      out.removeAll()
      failures = sender.poll(now: deadline, into: &out)
      transmissions += Self.sequences(in: out)
    }
    #expect(transmissions.filter { $0 == 0 }.count == 3, "three tries of frame 0")
    #expect(transmissions.filter { $0 == 1 }.count == 3)
    #expect(!transmissions.contains(2), "the queued frame never went out")
    #expect(failures == [.failed(sequence: 0, type: 0x02), .failed(sequence: 1, type: 0x02)])
    #expect(sender.isPaused)
    #expect(sender.nextDeadline == nil)
    out.removeAll()
    #expect(sender.poll(now: 1_000_000, into: &out).isEmpty)
    sender.send(Self.ping(3), now: 1_000_000, into: &out)
    #expect(out.isEmpty, "a paused sender sends nothing")
    #expect(sender.pendingFrames.map(\.sequence) == [0, 1, 2, 3], "failed frames are kept for a resume")
  }

  @Test func resumeResendsWithFreshTries() throws {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<3 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    while !sender.isPaused, let deadline = sender.nextDeadline { _ = sender.poll(now: deadline, into: &out) }
    out.removeAll()
    sender.resume(now: 5000, into: &out)
    #expect(!sender.isPaused)
    #expect(Self.sequences(in: out) == [0, 1])
    // A full set of tries again: two more retransmissions, then failure.
    var polls = 0
    while !sender.isPaused, let deadline = sender.nextDeadline {
      _ = sender.poll(now: deadline, into: &out)
      polls += 1
    }
    #expect(polls == 3, "two retransmissions and the failing poll")
    sender.resume(now: 90_000, into: &out)
    out.removeAll()
    #expect(sender.receive(response: Self.pong(0), now: 90_001, into: &out) != nil)
    #expect(Self.sequences(in: out) == [2], "an answer after resuming lets the queued frame out")
  }

  @Test func lateAnswerWhilePausedStillCompletes() {
    var sender = ReliableSender(window: 1, timing: Self.timing)
    var out: [UInt8] = []
    sender.send(Self.ping(0), now: 0, into: &out)
    sender.send(Self.ping(1), now: 0, into: &out)
    while !sender.isPaused, let deadline = sender.nextDeadline { _ = sender.poll(now: deadline, into: &out) }
    out.removeAll()
    #expect(
      sender.receive(response: Self.pong(0), now: 9999, into: &out) == .answered(sequence: 0, response: Self.pong(0)))
    #expect(out.isEmpty, "still paused: the queued frame waits for resume")
  }

  @Test func answersToNothingInFlightAreIgnored() {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    sender.send(Self.ping(0), now: 0, into: &out)
    #expect(sender.receive(response: Self.pong(7), now: 1, into: &out) == nil, "unknown sequence")
    var otherType = Self.pong(0)
    otherType.type = MessageType.getStatus.rawValue
    #expect(sender.receive(response: otherType, now: 1, into: &out) == nil, "same sequence, other type")
    #expect(sender.receive(response: Self.pong(0), now: 2, into: &out) != nil)
    #expect(sender.receive(response: Self.pong(0), now: 3, into: &out) == nil, "a duplicate answer")
    #expect(sender.isIdle)
  }

  @Test func refusalOtherThanAGapCompletesTheFrame() {
    var sender = ReliableSender(window: 1, timing: Self.timing)
    var out: [UInt8] = []
    sender.send(Self.ping(0), now: 0, into: &out)
    let refusal = Message.nak(to: MessageType.ping.rawValue, Nak(.noSession)).frame(sequence: 0, nonce: 1)
    #expect(sender.receive(response: refusal, now: 1, into: &out) == .answered(sequence: 0, response: refusal))
  }

  @Test func gapNakResendsFromTheMissingFrame() {
    var sender = ReliableSender(window: 4, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<4 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    _ = sender.receive(response: Self.pong(0), now: 5, into: &out)
    out.removeAll()
    // Frame 1 was lost; the board refuses 2 naming 1.
    #expect(sender.receive(response: Self.gapNak(2, expected: 1), now: 6, into: &out) == nil)
    #expect(Self.sequences(in: out) == [1, 2, 3])
    #expect(sender.inFlightCount == 3, "a gap NAK completes nothing")
    #expect(sender.retransmissions == 3)
  }

  @Test func gapNakNamingAFrameNotInFlightIsIgnored() {
    var sender = ReliableSender(window: 4, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<2 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    out.removeAll()
    #expect(sender.receive(response: Self.gapNak(1, expected: 40), now: 6, into: &out) == nil)
    #expect(out.isEmpty)
  }

  /// PROTOCOL.md §5.3 rule 6 (fixed in eafb150: the first version's stamp check never suppressed anything).
  @Test func laterGapNaksFromTheSameBurstAreSuppressed() {
    var sender = ReliableSender(window: 4, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<4 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    out.removeAll()
    // Frame 0 was lost; the board refused 1, 2 and 3, each naming 0, before it saw the resent 0.
    _ = sender.receive(response: Self.gapNak(1, expected: 0), now: 10, into: &out)
    #expect(Self.sequences(in: out) == [0, 1, 2, 3], "the first gap NAK resends from frame 0")
    out.removeAll()
    _ = sender.receive(response: Self.gapNak(2, expected: 0), now: 11, into: &out)
    _ = sender.receive(response: Self.gapNak(3, expected: 0), now: 12, into: &out)
    #expect(Self.sequences(in: out) == [], "frame 0 was already resent after 1, 2 and 3 went out")
    #expect(sender.retransmissions == 4)
  }

  @Test func gapNakResendsAgainAfterTheResendTimedOut() throws {
    var sender = ReliableSender(window: 4, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<3 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    _ = sender.receive(response: Self.gapNak(1, expected: 0), now: 10, into: &out)
    let deadline = try #require(sender.nextDeadline)
    _ = sender.poll(now: deadline, into: &out)  // the fast resend was lost too: timeout, go-back-N
    out.removeAll()
    _ = sender.receive(response: Self.gapNak(2, expected: 0), now: deadline + 1, into: &out)
    #expect(Self.sequences(in: out) == [0, 1, 2], "a gap NAK after the timeout is news again")
  }

  @Test func gapNakNamingAnotherFrameAfterAnAnswerResends() {
    var sender = ReliableSender(window: 4, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<4 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    _ = sender.receive(response: Self.gapNak(1, expected: 0), now: 10, into: &out)
    _ = sender.receive(response: Self.pong(0), now: 11, into: &out)
    out.removeAll()
    // Frame 1's resend was lost: the board, now expecting 1, refuses 2 naming 1.
    _ = sender.receive(response: Self.gapNak(2, expected: 1), now: 12, into: &out)
    #expect(Self.sequences(in: out) == [1, 2, 3])
  }

  /// PROTOCOL.md §5.3 rule 5 (v1.1): resent behind an older frame, a frame spends no try; only its own deadline
  /// does. Before, frame 1 failed at its first own deadline after frame 0's two timeouts had spent its tries.
  @Test func goBackNCompanionsSpendNoTries() throws {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<2 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    for _ in 0..<2 {  // frame 0 times out twice; frame 1 goes with it
      let deadline = try #require(sender.nextDeadline)
      #expect(sender.poll(now: deadline, into: &out).isEmpty)
    }
    _ = sender.receive(response: Self.pong(0), now: try #require(sender.nextDeadline) - 1, into: &out)
    var failures: [ReliableSender.Completion] = []
    while failures.isEmpty, let deadline = sender.nextDeadline { failures = sender.poll(now: deadline, into: &out) }
    let transmissions = Self.sequences(in: out).filter { $0 == 1 }.count
    #expect(transmissions == 5, "1 first + 2 behind frame 0 + 2 on its own deadline: 3 tries spent")
    #expect(failures == [.failed(sequence: 1, type: 0x02)])
  }

  /// PROTOCOL.md §5.3 rule 5 (v1.1.1): resent in a burst after its own deadline had passed (here an older frame's
  /// deadline, polled late), a frame spends a try: it was due anyway.
  @Test func aCompanionWhoseOwnDeadlinePassedSpendsATry() throws {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<2 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    #expect(sender.poll(now: 1_000, into: &out).isEmpty, "both deadlines passed: both resent, both spend a try")
    _ = sender.receive(response: Self.pong(0), now: 1_001, into: &out)
    var failures: [ReliableSender.Completion] = []
    while failures.isEmpty, let deadline = sender.nextDeadline { failures = sender.poll(now: deadline, into: &out) }
    #expect(Self.sequences(in: out).filter { $0 == 1 }.count == 3, "first, the late burst, its own deadline")
    #expect(failures == [.failed(sequence: 1, type: 0x02)])
  }

  /// PROTOCOL.md §5.3 rule 5 (v1.1.1): a frame whose own deadline passed after its last try is never sent again,
  /// not even by a gap NAK that arrives before the poll: the poll, due at once, fails the channel.
  @Test func aFrameOutOfTriesIsNotFastRetransmitted() throws {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<2 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    for _ in 0..<2 { #expect(sender.poll(now: try #require(sender.nextDeadline), into: &out).isEmpty) }
    let last = try #require(sender.nextDeadline)  // frame 0's, after its third and last try
    out.removeAll()
    #expect(sender.receive(response: Self.gapNak(1, expected: 0), now: last, into: &out) == nil)
    #expect(out.isEmpty, "no fourth transmission")
    #expect(try #require(sender.nextDeadline) <= last)
    #expect(sender.poll(now: last, into: &out) == [.failed(sequence: 0, type: 0x02), .failed(sequence: 1, type: 0x02)])
  }

  /// PROTOCOL.md §5.3 rules 5 and 6 (v1.1): a fast retransmit spends no try.
  @Test func fastRetransmitsSpendNoTries() throws {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<2 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    var failures: [ReliableSender.Completion] = []
    while failures.isEmpty, let deadline = sender.nextDeadline {
      // Each time, the board refuses frame 1 naming 0 before frame 0's deadline: a fast retransmit.
      _ = sender.receive(response: Self.gapNak(1, expected: 0), now: deadline - 1, into: &out)
      let renewed = try #require(sender.nextDeadline)
      failures = sender.poll(now: renewed, into: &out)
    }
    let transmissions = Self.sequences(in: out).filter { $0 == 0 }.count
    #expect(transmissions == 6, "3 tries on its own deadlines and 3 fast retransmits between them")
    #expect(sender.isPaused)
  }

  /// A peer that NAKs forever, alternating the frame it names, cannot keep the sender resending: at most
  /// maxTries fast retransmits per frame.
  @Test func fastRetransmitsAreBoundedPerFrame() {
    var sender = ReliableSender(window: 4, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<4 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    out.removeAll()
    for round in 0..<10 {
      _ = sender.receive(response: Self.gapNak(2, expected: 0), now: UInt64(2 * round + 1), into: &out)
      _ = sender.receive(response: Self.gapNak(3, expected: 1), now: UInt64(2 * round + 2), into: &out)
    }
    // Bursts from 0 resend 0-3, bursts from 1 resend 1-3: frame 0 goes out once per burst from 0.
    #expect(Self.sequences(in: out).filter { $0 == 0 }.count == Self.timing.maxTries)
    #expect(sender.poll(now: 30, into: &out).isEmpty, "nothing failed: no deadline has passed")
  }

  /// PROTOCOL.md §5.3 rule 6 (v1.1): the NAK of a later frame's first transmission, naming a frame answered
  /// since (the loss was repaired), is ignored; the later frame's deadline runs on.
  @Test func gapNakNamingAnAnsweredFrameIsIgnored() throws {
    var sender = ReliableSender(window: 4, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<3 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    let deadline = try #require(sender.nextDeadline)
    _ = sender.receive(response: Self.pong(0), now: 5, into: &out)
    out.removeAll()
    #expect(sender.receive(response: Self.gapNak(2, expected: 0), now: 6, into: &out) == nil)
    #expect(out.isEmpty && sender.inFlightCount == 2)
    #expect(try #require(sender.nextDeadline) > deadline, "frames 1 and 2 keep their own deadlines")
  }

  @Test func resetFailsEverythingAndRestartsNumbering() {
    var sender = ReliableSender(window: 2, timing: Self.timing)
    var out: [UInt8] = []
    for tag in 0..<3 { sender.send(Self.ping(UInt8(tag)), now: 0, into: &out) }
    let dropped = sender.reset(firstSequence: 100)
    #expect(dropped == [.failed(sequence: 0, type: 2), .failed(sequence: 1, type: 2), .failed(sequence: 2, type: 2)])
    #expect(sender.isIdle && !sender.isPaused && sender.nextDeadline == nil)
    #expect(sender.send(Self.ping(9), now: 1, into: &out) == 100)
  }
}
