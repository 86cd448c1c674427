/// The sending half of a reliable channel: numbers frames, keeps up to `window` of them in flight,
/// retransmits go-back-N style on timeout or on the peer's ``ErrorCode/sequenceGap`` NAK, and fails a
/// frame after ``LinkTiming/maxTries`` tries. Pure: the caller passes the time in.
///
/// Only a frame's own deadline spends its tries (PROTOCOL.md §5.3 rule 5): the first transmission, then each
/// retransmission made because that frame's deadline had passed. Being resent behind an older frame
/// (go-back-N) or by a fast retransmit costs no try; fast retransmits are bounded on their own (at most
/// ``LinkTiming/maxTries`` per frame), so a peer that NAKs forever cannot keep the sender busy.
public struct ReliableSender: Sendable {
  /// A frame waiting for its answer.
  struct Outstanding: Sendable {
    var frame: Frame
    var wire: [UInt8]
    /// Tries spent: the first transmission and each retransmission on this frame's own deadline.
    var tries: Int
    /// Fast retransmits that named this frame.
    var fastRetransmits = 0
    var deadline: UInt64
    /// The line bytes this frame accounts for: its own encoding and the answer it asks for.
    var lineBytes: Int
  }

  /// What happened to a frame this sender had sent.
  public enum Completion: Equatable, Sendable {
    /// The peer answered it.
    case answered(sequence: UInt16, response: Frame)
    /// It went unanswered through every try.
    case failed(sequence: UInt16, type: UInt8)
  }

  /// The most frames in flight.
  public var window: Int
  /// Retransmission rules.
  public var timing: LinkTiming
  /// The sequence the next new frame gets.
  public private(set) var nextSequence: UInt16
  /// Retransmissions made so far.
  public private(set) var retransmissions: UInt32 = 0

  private var inFlight: [Outstanding] = []
  private var queued: [Frame] = []
  private var paused = false
  /// The frame last resent because of a gap NAK. Every frame sent after a lost one draws a gap NAK
  /// naming it; one resend answers them all, and its timeout covers the resend being lost too.
  private var fastRetransmitted: UInt16?

  /// Creates a sender whose first frame gets `firstSequence`.
  public init(window: Int = 1, timing: LinkTiming = .standard, firstSequence: UInt16 = 0) {
    self.window = max(1, window)
    self.timing = timing
    nextSequence = firstSequence
  }

  /// Frames sent and not yet answered.
  public var inFlightCount: Int { inFlight.count }
  /// Frames waiting for room in the window.
  public var queuedCount: Int { queued.count }
  /// Whether nothing is in flight or queued.
  public var isIdle: Bool { inFlight.isEmpty && queued.isEmpty }

  /// The earliest retransmission deadline, if any frame is in flight.
  public var nextDeadline: UInt64? {
    if paused { return nil }
    var earliest: UInt64? = nil
    for entry in inFlight where earliest == nil || entry.deadline < earliest! { earliest = entry.deadline }
    return earliest
  }

  /// Queues `frame` (its sequence is assigned here) and sends what the window allows into `out`.
  /// Returns the sequence given to the frame.
  @discardableResult
  public mutating func send(_ frame: Frame, now: UInt64, into out: inout [UInt8]) -> UInt16 {
    var frame = frame
    frame.sequence = nextSequence
    nextSequence &+= 1
    queued.append(frame)
    fill(now: now, into: &out)
    return frame.sequence
  }

  /// Takes an answer from the peer. Returns the completion it brings, or nil for an answer to nothing
  /// in flight (a late duplicate) or a gap NAK (which triggers a retransmission into `out` instead).
  public mutating func receive(response: Frame, now: UInt64, into out: inout [UInt8]) -> Completion? {
    guard
      let index = inFlight.firstIndex(where: {
        $0.frame.sequence == response.sequence && $0.frame.type == response.type
      })
    else { return nil }
    if response.flags.contains(.nak), response.payload.first == ErrorCode.sequenceGap.rawValue {
      // The peer dropped this frame because an earlier one went missing: resend from the missing one,
      // once; further gap NAKs naming it are echoes of the same loss.
      // A NAK naming a frame that is not unanswered (answered since, or never sent) is ignored: this frame's
      // deadline runs on (§5.3 rule 6).
      // A frame whose own deadline passed after its last try is not resent: the channel fails at the next poll,
      // which that deadline makes due at once (§5.3 rule 5).
      let missing = UInt16(truncatingIfNeeded: Nak(payload: response.payload)?.detail ?? 0)
      if missing != fastRetransmitted, let first = inFlight.firstIndex(where: { $0.frame.sequence == missing }),
        inFlight[first].fastRetransmits < timing.maxTries, !hasExhaustedFrame(from: first, now: now)
      {
        fastRetransmitted = missing
        inFlight[first].fastRetransmits += 1
        retransmit(from: first, now: now, into: &out)
      }
      return nil
    }
    if fastRetransmitted == response.sequence { fastRetransmitted = nil }
    inFlight.remove(at: index)
    fill(now: now, into: &out)
    return .answered(sequence: response.sequence, response: response)
  }

  /// Retransmits what is overdue, go-back-N: every frame in flight from the oldest overdue one on.
  /// Frames out of tries fail; they are returned, and the sender pauses until ``resume(now:into:)``
  /// or ``reset(firstSequence:)``, keeping them, so that a caller may retry after re-synchronising.
  public mutating func poll(now: UInt64, into out: inout [UInt8]) -> [Completion] {
    guard !paused, let overdue = inFlight.firstIndex(where: { $0.deadline <= now }) else { return [] }
    // Any frame whose own deadline passed after its last try fails the channel.
    if hasExhaustedFrame(from: overdue, now: now) {
      paused = true
      return inFlight.map { .failed(sequence: $0.frame.sequence, type: $0.frame.type) }
    }
    fastRetransmitted = nil
    retransmit(from: overdue, now: now, into: &out)
    return []
  }

  /// Whether the sender gave up and waits for ``resume(now:into:)`` or ``reset(firstSequence:)``.
  public var isPaused: Bool { paused }

  /// Sends everything in flight again with fresh tries (after the peer came back).
  public mutating func resume(now: UInt64, into out: inout [UInt8]) {
    paused = false
    if !inFlight.isEmpty { retransmit(from: 0, now: now, into: &out) }
    for index in inFlight.indices {  // the resend is each frame's first fresh try
      inFlight[index].tries = 1
      inFlight[index].fastRetransmits = 0
    }
    fill(now: now, into: &out)
  }

  /// Drops everything in flight and queued, returning their sequences and types, and restarts numbering.
  public mutating func reset(firstSequence: UInt16) -> [Completion] {
    let dropped =
      inFlight.map { Completion.failed(sequence: $0.frame.sequence, type: $0.frame.type) }
      + queued.map { Completion.failed(sequence: $0.sequence, type: $0.type) }
    inFlight.removeAll()
    queued.removeAll()
    paused = false
    fastRetransmitted = nil
    nextSequence = firstSequence
    return dropped
  }

  /// Frames still pending (in flight first, then queued), oldest first.
  public var pendingFrames: [Frame] { inFlight.map { $0.frame } + queued }

  private mutating func fill(now: UInt64, into out: inout [UInt8]) {
    // Go-back-N counts the span from the oldest unanswered frame, not the frames in flight: the receiver
    // remembers answers for `window` sequences behind its expectation, so a frame whose answer was lost
    // must never fall further behind than that, or its retransmission could no longer be answered.
    while !paused, let next = queued.first,
      inFlight.isEmpty || Int(next.sequence &- inFlight[0].frame.sequence) < window
    {
      let frame = queued.removeFirst()
      let wire = frame.encoded()
      let lineBytes = wire.count + frame.answerBytesBeyondAck
      let ahead = inFlight.reduce(0) { $0 + $1.lineBytes } + lineBytes
      out.append(contentsOf: wire)
      inFlight.append(
        Outstanding(
          frame: frame, wire: wire, tries: 1, deadline: now + timing.timeout(bytesAhead: ahead), lineBytes: lineBytes))
    }
  }

  /// Whether a frame from `first` on has seen its own deadline pass after its last try.
  private func hasExhaustedFrame(from first: Int, now: UInt64) -> Bool {
    inFlight[first...].contains { $0.deadline <= now && $0.tries >= timing.maxTries }
  }

  /// Resends every frame from `first` on; a frame spends a try only if its own deadline had passed, whatever
  /// made the burst (its own deadline, an older frame's, or a gap NAK): it was due to be resent anyway.
  private mutating func retransmit(from first: Int, now: UInt64, into out: inout [UInt8]) {
    var ahead = 0
    for index in first..<inFlight.count {
      ahead += inFlight[index].lineBytes
      out.append(contentsOf: inFlight[index].wire)
      if inFlight[index].deadline <= now { inFlight[index].tries += 1 }
      inFlight[index].deadline = now + timing.timeout(bytesAhead: ahead)
      retransmissions &+= 1
    }
  }
}

extension Frame {
  /// The data an answer to this frame carries beyond a plain ACK: TABLE_READ's `length` (at most; fewer
  /// at the table's end). Those bytes share the line with every later answer, so they count towards later
  /// deadlines; without them a window of reads at 115 200 baud would time out behind its own answers.
  var answerBytesBeyondAck: Int {
    guard type == MessageType.tableRead.rawValue, !flags.contains(.response),
      case .tableRead(let read)? = try? Command.decode(type: .tableRead, payload: payload)
    else { return 0 }
    return Int(read.length)
  }
}
