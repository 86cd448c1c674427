/// One end of a v1 link as a pure state machine: bytes and time in, bytes out and typed deliveries.
///
/// The host end sends commands reliably and acknowledges events; the board end answers commands (the
/// application supplies each answer with ``answer(sequence:type:with:now:)``) and sends events reliably.
/// Both ends run the same code:
/// - ``receive(_:now:)`` decodes bytes in any chunking and returns what they deliver;
/// - ``send(command:now:)`` / ``send(event:now:)`` queue reliable messages;
/// - ``poll(now:)`` retransmits what is overdue; call it by ``nextDeadline``;
/// - ``takeOutput()`` hands over the bytes to write.
public struct LinkEndpoint: Sendable {
  /// Which end this is.
  public enum Role: Sendable {
    /// Sends commands, receives events.
    case host
    /// Receives commands, sends events.
    case board
  }

  /// What the link delivered.
  public enum Delivery: Equatable, Sendable {
    /// (Board) A command to act on; answer it with ``answer(sequence:type:with:now:)``.
    case command(sequence: UInt16, Command)
    /// (Host) The answer to a command this end sent: `.reply` or `.nak`.
    case answer(sequence: UInt16, Message)
    /// (Host) A command this end sent that went unanswered through every try.
    case failed(sequence: UInt16, type: UInt8)
    /// (Host) An event from the board, already acknowledged.
    case event(sequence: UInt16, Event)
    /// (Host) An unacknowledged notification.
    case actuators(ActuatorTrace)
    /// (Board) The host acknowledged an event.
    case eventAcknowledged(sequence: UInt16)
    /// (Board) An event went unacknowledged through every try; events wait for the next command acted on.
    case eventsStalled
    /// (Host) Frames from the board carry a new boot nonce: it restarted. Reported once per nonce.
    case peerRestarted(nonce: UInt32)
    /// A frame was dropped by the decoder.
    case dropped(FrameError)
    /// A valid frame held a message this end could not read (and, for a command, was refused).
    case unreadable(MessageError)
  }

  /// This end's role.
  public let role: Role
  /// The board's boot nonce: the board's own, or the one the host last saw.
  public var nonce: UInt32
  /// Reliable sending of commands (host) or events (board).
  public private(set) var sender: ReliableSender
  /// In-order receiving of commands (board) or events (host).
  public private(set) var receiver: ReliableReceiver
  /// The frame decoder, with its counters.
  public private(set) var decoder: FrameDecoder
  /// (Board) Whether a HELLO has opened a session since boot.
  public private(set) var hasSession = false
  /// The negotiated payload limit, once terms were applied: a board refuses longer commands (§5.6 step 6).
  public private(set) var negotiatedMaxPayload: Int?
  /// Unreliable notifications sent, used as their sequence.
  private var notificationCount: UInt16 = 0
  private var output: [UInt8] = []
  /// The last HELLO answered, so that a retransmitted HELLO (same sequence and bytes) gets the same INFO
  /// without resetting anything, while a new host's HELLO that happens to reuse the sequence is new.
  private var lastHello: (sequence: UInt16, payload: [UInt8], answer: Frame)? = nil
  private var helloBeingAnswered: [UInt8] = []

  /// Creates an endpoint.
  ///
  /// - Parameters:
  ///   - nonce: the board's fresh boot nonce (board), or 0 until learned (host).
  ///   - maxPayload: the largest payload this end accepts.
  ///   - window: frames in flight before the handshake negotiates more (1 is always safe).
  public init(
    role: Role, nonce: UInt32 = 0, maxPayload: Int = Frame.maxPayload, window: Int = 1,
    timing: LinkTiming = .standard, firstSequence: UInt16 = 0
  ) {
    self.role = role
    self.nonce = nonce
    sender = ReliableSender(window: window, timing: timing, firstSequence: firstSequence)
    receiver = ReliableReceiver(window: window)
    decoder = FrameDecoder(maxPayload: maxPayload)
  }

  /// The time ``poll(now:)`` should next be called, if anything waits for an answer.
  public var nextDeadline: UInt64? { sender.nextDeadline }

  /// Hands over the bytes to write and forgets them.
  public mutating func takeOutput() -> [UInt8] {
    defer { output.removeAll(keepingCapacity: true) }
    return output
  }

  /// Whether bytes are waiting to be written.
  public var hasOutput: Bool { !output.isEmpty }

  /// Applies negotiated terms: the window, for both halves. (The decoder keeps the limit it was made
  /// with; the peer's limit is for the application to respect when it builds payloads.)
  public mutating func apply(_ terms: SessionTerms) {
    sender.window = terms.window
    receiver.window = terms.window
    negotiatedMaxPayload = terms.maxPayload
  }

  /// (Host) Sends a command reliably; returns its sequence.
  @discardableResult
  public mutating func send(command: Command, now: UInt64) -> UInt16 {
    sender.send(Message.command(command).frame(sequence: 0, nonce: nonce), now: now, into: &output)
  }

  /// (Board) Sends an event reliably; returns its sequence.
  @discardableResult
  public mutating func send(event: Event, now: UInt64) -> UInt16 {
    sender.send(Message.event(event).frame(sequence: 0, nonce: nonce), now: now, into: &output)
  }

  /// (Board) Sends an unacknowledged ACTUATORS notification.
  public mutating func notify(_ trace: ActuatorTrace) {
    notificationCount &+= 1
    Message.actuators(trace).frame(sequence: notificationCount, nonce: nonce).appendEncoded(to: &output)
  }

  /// (Board) Answers the command delivered with `sequence`; the answer is kept for replay unless the
  /// command is idempotent. HELLO's answer opens the session: call ``openSession(_:)`` first.
  ///
  /// The receiver moved past the command when it was delivered, so several commands in one chunk of bytes
  /// are each delivered once, in order, whenever their answers are given; a duplicate that arrives before
  /// the answer is dropped (the answer is on its way).
  public mutating func answer(sequence: UInt16, type: UInt8, with message: Message, now: UInt64) {
    let frame = message.frame(sequence: sequence, nonce: nonce)
    frame.appendEncoded(to: &output)
    if type == MessageType.hello.rawValue {
      if case .reply = message { lastHello = (sequence, helloBeingAnswered, frame) }
      receiver.reset()
      receiver.record(sequence: sequence, answer: nil)
      return
    }
    let idempotent = MessageType(rawValue: type)?.isIdempotent ?? false
    if !idempotent { receiver.keep(answer: frame, for: sequence) }
  }

  /// (Board) Opens a session with negotiated terms: the command channel starts after HELLO's sequence,
  /// and events that stalled are sent again.
  public mutating func openSession(_ terms: SessionTerms, now: UInt64) {
    hasSession = true
    apply(terms)
    sender.resume(now: now, into: &output)
  }

  /// (Host) Starts over after the board restarted or the port reopened: fails every pending command and
  /// takes `nonce` as the board's. The board's event sequence is forgotten only when the nonce changes
  /// (a new boot); under the same nonce the board continues its numbering, and forgetting it would take
  /// a retransmitted event for a new one.
  public mutating func restart(nonce: UInt32, firstSequence: UInt16) -> [Delivery] {
    if nonce != self.nonce {
      self.nonce = nonce
      receiver.reset()
    }
    decoder.reset()
    return sender.reset(firstSequence: firstSequence).map {
      if case .failed(let sequence, let type) = $0 { return .failed(sequence: sequence, type: type) }
      return .dropped(.tooShort(count: 0))
    }
  }

  /// Retransmits what is overdue and reports what failed.
  public mutating func poll(now: UInt64) -> [Delivery] {
    let completions = sender.poll(now: now, into: &output)
    if completions.isEmpty { return [] }
    if role == .board { return [.eventsStalled] }
    return completions.compactMap {
      if case .failed(let sequence, let type) = $0 { return .failed(sequence: sequence, type: type) }
      return nil
    }
  }

  /// Takes bytes from the peer and returns what they deliver, in order. (Inlinable so that callers in other
  /// modules get a loop specialised for their collection, without an allocation per byte.)
  @inlinable
  public mutating func receive(_ bytes: some Sequence<UInt8>, now: UInt64) -> [Delivery] {
    var deliveries: [Delivery] = []
    for byte in bytes { receive(byte: byte, now: now, into: &deliveries) }
    return deliveries
  }

  /// Takes one byte from the peer and appends what it delivers (nothing until it ends a frame).
  public mutating func receive(byte: UInt8, now: UInt64, into deliveries: inout [Delivery]) {
    guard let out = decoder.push(byte) else { return }
    switch out {
    case .dropped(let error): deliveries.append(.dropped(error))
    case .frame(let frame): handle(frame, now: now, into: &deliveries)
    }
  }

  private mutating func handle(_ frame: Frame, now: UInt64, into deliveries: inout [Delivery]) {
    let isCommandSpace = frame.type & 0x80 == 0
    switch role {
    case .host:
      if frame.nonce != nonce {
        nonce = frame.nonce
        receiver.reset()
        deliveries.append(.peerRestarted(nonce: frame.nonce))
      }
      if frame.flags.contains(.response) {
        guard isCommandSpace,
          let completion = sender.receive(response: frame, now: now, into: &output),
          case .answered(let sequence, let response) = completion
        else { return }
        do throws(MessageError) {
          deliveries.append(.answer(sequence: sequence, try Message.decode(response)))
        } catch {
          deliveries.append(.unreadable(error))
        }
      } else if frame.flags.contains(.notify) {
        if case .actuators(let trace)? = try? Message.decode(frame) { deliveries.append(.actuators(trace)) }
      } else if !isCommandSpace {
        hostReceiveEvent(frame, now: now, into: &deliveries)
      }
    case .board:
      if frame.flags.contains(.response) {
        guard !isCommandSpace else { return }
        // An acknowledgement has no payload; one with bytes is unreadable and acknowledges nothing (§5.5).
        guard frame.payload.isEmpty else {
          do throws(MessageError) { _ = try Message.decode(frame) } catch { deliveries.append(.unreadable(error)) }
          return
        }
        guard let completion = sender.receive(response: frame, now: now, into: &output),
          case .answered(let sequence, _) = completion
        else { return }
        deliveries.append(.eventAcknowledged(sequence: sequence))
      } else if isCommandSpace && !frame.flags.contains(.notify) {
        boardReceiveCommand(frame, now: now, into: &deliveries)
      }
    }
  }

  private mutating func hostReceiveEvent(_ frame: Frame, now: UInt64, into deliveries: inout [Delivery]) {
    let ack = Frame(flags: .response, sequence: frame.sequence, type: frame.type, nonce: nonce)
    switch receiver.accept(sequence: frame.sequence, idempotent: false) {
    case .new:
      ack.appendEncoded(to: &output)
      receiver.record(sequence: frame.sequence, answer: ack)
      do throws(MessageError) {
        if case .event(let event) = try Message.decode(frame) {
          deliveries.append(.event(sequence: frame.sequence, event))
        }
      } catch {
        deliveries.append(.unreadable(error))
      }
    case .replay(let answer): answer.appendEncoded(to: &output)
    case .repeatIdempotent, .stale: ack.appendEncoded(to: &output)
    case .gap: break  // the board resends in order after its timeout
    }
  }

  private mutating func boardReceiveCommand(_ frame: Frame, now: UInt64, into deliveries: inout [Delivery]) {
    if frame.type == MessageType.hello.rawValue {
      if let last = lastHello, last.sequence == frame.sequence, last.payload == frame.payload,
        receiver.expected == frame.sequence &+ 1
      {
        receiver.countDuplicate()
        last.answer.appendEncoded(to: &output)
        return
      }
      helloBeingAnswered = frame.payload
      decodeAndDeliver(frame, into: &deliveries)
      return
    }
    guard hasSession else { return refusal(frame, .noSession, 0).appendEncoded(to: &output) }
    guard frame.nonce == nonce else { return refusal(frame, .staleNonce, 0).appendEncoded(to: &output) }
    let idempotent = MessageType(rawValue: frame.type)?.isIdempotent ?? false
    switch receiver.accept(sequence: frame.sequence, idempotent: idempotent) {
    case .new:
      receiver.record(sequence: frame.sequence, answer: nil)
      decodeAndDeliver(frame, into: &deliveries)
    case .repeatIdempotent: decodeAndDeliver(frame, into: &deliveries)
    case .replay(let answer): answer.appendEncoded(to: &output)
    case .gap(let expected): refusal(frame, .sequenceGap, UInt32(expected)).appendEncoded(to: &output)
    case .stale: break
    }
  }

  private func refusal(_ frame: Frame, _ code: ErrorCode, _ detail: UInt32) -> Frame {
    Message.nak(to: frame.type, Nak(code, detail: detail)).frame(sequence: frame.sequence, nonce: nonce)
  }

  private mutating func decodeAndDeliver(_ frame: Frame, into deliveries: inout [Delivery]) {
    if role == .board, frame.type != MessageType.hello.rawValue, let limit = negotiatedMaxPayload,
      frame.payload.count > limit
    {
      // Within the board's own limit (the decoder passed it) but beyond the session's: refused, never echoed
      // longer than the host accepts, never dropped (§5.6 step 6).
      let error = MessageError.payload(
        type: frame.type, PayloadError(.trailingBytes, field: "max_payload", offset: limit))
      deliveries.append(.unreadable(error))
      answer(sequence: frame.sequence, type: frame.type, with: Message.nak(to: frame.type, error.nak), now: 0)
      return
    }
    do throws(MessageError) {
      guard case .command(let command) = try Message.decode(frame) else { return }
      deliveries.append(.command(sequence: frame.sequence, command))
    } catch {
      deliveries.append(.unreadable(error))
      let nak = Message.nak(to: frame.type, error.nak)
      // A refused command still takes its place in the sequence, so its NAK is replayed if repeated.
      answer(sequence: frame.sequence, type: frame.type, with: nak, now: 0)
    }
  }
}
