import CallAlertProtocol
import CallAlertRuntime

/// The host's session with one board as a pure state machine: `(state, input, now) -> (state, actions)`.
///
/// It owns the ``LinkEndpoint`` (frames, sequence numbers, retransmission) and everything above it: the
/// handshake and its retries, which caller each command in flight answers, the resend of a command the board
/// refused because it restarted, what plays and so the lease renewals, the idle probes, an unresponsive
/// board's probing handshakes, and the pauses between reopening an unplugged port. Time is the `now` of each
/// input, in milliseconds; the owner wakes it at ``nextDeadline`` with ``Input/deadline``, sends what
/// ``takeOutput()`` returns, and carries out the ``Action``s. `BoardClient` is that owner.
struct BoardSession {
  /// Names one caller's request; chosen by the owner, handed back in the action that answers it.
  typealias RequestID = UInt64
  /// What a command brings its caller: the board's reply, or why there is none.
  typealias CommandResult = Result<Reply, BoardClientError>

  /// What happens to the session.
  enum Input {
    /// A caller wants the session open (``Action/opened(_:_:)`` answers it).
    case connect(RequestID)
    /// A caller's command: sent once the session is open, and once more if the board restarted under it.
    case command(RequestID, Command)
    /// Commands handed to the link at once, in this order, each answered on its own (never resent).
    case batch([(id: RequestID, command: Command)])
    /// Bytes from the board.
    case received([UInt8])
    /// ``nextDeadline`` has come.
    case deadline
    /// The transport ended (unplugged, or the far end closed).
    case transportLost(reason: String)
    /// A transport reopened after ``Action/reopenTransport`` is attached.
    case transportReopened
    /// Reopening failed (or the transport of a failed try is released): the next try follows a pause.
    case reopenFailed
    /// The owner closes the session.
    case close
  }

  /// What the owner must do.
  enum Action: Equatable {
    /// Hand a command's result to its caller.
    case answer(RequestID, CommandResult)
    /// Hand the session's INFO, or why it did not open, to a caller of ``Input/connect(_:)``.
    case opened(RequestID, Result<BoardInfo, BoardClientError>)
    /// Report an event to the client's listeners.
    case report(BoardClientEvent)
    /// Drop output still queued for the line: the link starts over, and a HELLO must not wait behind
    /// retransmissions of frames already given up.
    case discardQueuedOutput
    /// Open the transport again (the reconnect policy's opener), then ``Input/transportReopened`` or
    /// ``Input/reopenFailed``.
    case reopenTransport
    /// Close the reopened transport (a different board, or no session on it), wait until the port is
    /// released, then ``Input/reopenFailed``.
    case abandonTransport
    /// The session is closed for good: stop reading and writing, end the events.
    case finish
  }

  /// Where the session stands.
  enum Phase: Equatable {
    /// A transport and no session: the next command or connect opens one.
    case idle
    /// HELLO (and what follows it) is under way.
    case handshaking(Handshake)
    /// The session is open: commands go straight to the link.
    case open
    /// A keepalive went unanswered; HELLO is sent again at `retryAtMs`, with growing pauses.
    case unresponsive(retryAtMs: UInt64, backoff: Backoff)
    /// No transport; with a reconnect policy, reopened with pauses.
    case detached(Reconnection?)
    /// Closed for good.
    case closed
  }

  /// A handshake: why it runs (what follows its success or failure) and the exchange it waits for.
  struct Handshake: Equatable {
    /// Why the handshake runs.
    enum Purpose: Equatable {
      /// A caller needs a session.
      case open
      /// The board restarted under an open session: ``BoardClientEvent/restarted(_:)`` follows.
      case restarted
      /// A reopened transport: the same board must answer (``BoardClientEvent/reconnected(_:_:)``).
      case reattach(Reconnection)
      /// An unresponsive board is called (``BoardClientEvent/responsive(_:_:)``).
      case probe(Backoff)
    }

    /// The exchange the handshake waits for.
    enum Step: Equatable {
      /// HELLO, the `attempt`th time.
      case hello(attempt: Int)
      /// LEASE, setting the lease the client asks for.
      case lease
      /// GET_STATUS, for the report of a board that is back.
      case status
    }

    /// Why it runs.
    var purpose: Purpose
    /// What it waits for.
    var step: Step
  }

  /// Reopening an unplugged board: since when, the pauses, and when the next try is due (nil while one runs).
  struct Reconnection: Equatable {
    /// When the transport was lost (the reconnect policy's limit counts from here).
    var beganMs: UInt64
    /// The pauses between tries.
    var backoff: Backoff
    /// When the next try is due; nil while one runs.
    var retryAtMs: UInt64?
  }

  /// Who waits for a frame the link sent.
  enum Sent {
    /// A caller's command; a single one is resent once after a restart and counts as a keepalive.
    case caller(RequestID, Command, single: Bool, resent: Bool)
    /// The handshake's own exchanges.
    case hello, handshakeLease, handshakeStatus
    /// A keepalive the session sends by itself.
    case keepalive(Keepalive)
  }

  /// The keepalives: LEASE while something plays, PING while idle.
  enum Keepalive: String {
    case lease = "LEASE"
    case ping = "PING"
  }

  /// The client's options: what HELLO offers, the lease, the retries, liveness, reconnecting.
  let options: BoardClientOptions
  /// Where the session stands.
  var phase: Phase = .idle
  /// The link: frames, sequence numbers, retransmission.
  var endpoint: LinkEndpoint
  /// The board's INFO from the current session; nil while not connected.
  var info: BoardInfo?
  /// What the current session negotiated; nil before the first one.
  var terms: SessionTerms?
  /// What plays, and so whether the lease needs renewing.
  var lease = LeaseKeeper()
  /// Frames in flight, by sequence number, and who waits for each.
  var sent: [UInt16: Sent] = [:]
  /// Commands waiting for the session to open, in order.
  var queued: [(id: RequestID, command: Command, single: Bool, resent: Bool)] = []
  /// Callers of ``Input/connect(_:)`` waiting for the session to open.
  var openers: [RequestID] = []
  /// The serial number of the board first connected: a reconnect must find the same one.
  var boardSerial: [UInt8]?
  /// Commands sent again because the board had restarted under them.
  var resentAfterRestart = 0
  /// When the lease is next renewed while something plays.
  var leaseRenewalAtMs: UInt64?
  /// When the next idle PING is due.
  var idleProbeAtMs: UInt64?
  /// Bytes received since the last valid frame, and those of them not yet reported as line noise.
  var noise = (sinceFrame: 0, unreported: 0)

  /// A session over a transport the owner holds; nothing is sent until a command or ``Input/connect(_:)``.
  init(options: BoardClientOptions, firstSequence: UInt16) {
    self.options = options
    endpoint = LinkEndpoint(role: .host, timing: options.timing, firstSequence: firstSequence)
  }

  /// Whether a keepalive went unanswered and the board has not answered since.
  var isUnresponsive: Bool {
    switch phase {
    case .unresponsive: true
    case .handshaking(let handshake): if case .probe = handshake.purpose { true } else { false }
    default: false
    }
  }

  /// Whether a transport is attached (the session may be open or not).
  var isAttached: Bool {
    switch phase {
    case .detached, .closed: false
    default: true
    }
  }

  /// When ``Input/deadline`` is next due: the link's retransmission, a keepalive, a retry; nil for none.
  var nextDeadline: UInt64? {
    var next = endpoint.nextDeadline
    func consider(_ time: UInt64?) {
      guard let time else { return }
      next = min(next ?? time, time)
    }
    consider(idleProbeAtMs)
    consider(leaseRenewalAtMs)
    switch phase {
    case .unresponsive(let retryAtMs, _): consider(retryAtMs)
    case .detached(let reconnection?): consider(reconnection.retryAtMs)
    default: break
    }
    return next
  }

  /// The bytes to write to the line, in order.
  mutating func takeOutput() -> [UInt8] { endpoint.takeOutput() }

  /// Steps the machine: what `input` at `now` changes, and what the owner must do about it.
  mutating func handle(_ input: Input, now: UInt64) -> [Action] {
    var actions: [Action] = []
    switch input {
    case .connect(let id): connect(id, now: now, &actions)
    case .command(let id, let command): request(id, command, single: true, resent: false, now: now, &actions)
    case .batch(let commands):
      for item in commands { request(item.id, item.command, single: false, resent: false, now: now, &actions) }
    case .received(let bytes):
      let framesBefore = endpoint.decoder.counters.frames
      deliver(endpoint.receive(bytes, now: now), now: now, &actions)
      noteNoise(bytes.count, framesDecoded: endpoint.decoder.counters.frames != framesBefore, &actions)
    case .deadline: deadlineReached(now: now, &actions)
    case .transportLost(let reason): lost(reason, now: now, &actions)
    case .transportReopened:
      if case .detached(let reconnection?) = phase { startHandshake(.reattach(reconnection), now: now, &actions) }
    case .reopenFailed:
      if case .detached(var reconnection?) = phase, reconnection.retryAtMs == nil {
        reconnection.retryAtMs = now + reconnection.backoff.next().milliseconds
        phase = .detached(reconnection)
      }
    case .close: close(&actions)
    }
    startWhatIsDue(now: now, &actions)
    return actions
  }

  // MARK: - Callers

  private mutating func connect(_ id: RequestID, now: UInt64, _ actions: inout [Action]) {
    switch phase {
    case .closed: actions.append(.opened(id, .failure(.closed)))
    case .detached: actions.append(.opened(id, .failure(.disconnected(reason: "no transport"))))
    case .open: actions.append(.opened(id, info.map { .success($0) } ?? .failure(.disconnected(reason: "no session"))))
    case .handshaking: openers.append(id)
    case .idle:
      openers.append(id)
      startHandshake(.open, now: now, &actions)
    case .unresponsive(_, let backoff):
      openers.append(id)
      startHandshake(.probe(backoff), now: now, &actions)
    }
  }

  /// Sends a caller's command when the session is open, else queues it behind the handshake (starting one).
  mutating func request(
    _ id: RequestID, _ command: Command, single: Bool, resent: Bool, now: UInt64, _ actions: inout [Action]
  ) {
    switch phase {
    case .closed: actions.append(.answer(id, .failure(.closed)))
    case .detached: actions.append(.answer(id, .failure(.disconnected(reason: "no transport"))))
    case .open: send(.caller(id, command, single: single, resent: resent), command, now: now)
    case .handshaking: queued.append((id, command, single, resent))
    case .idle:
      queued.append((id, command, single, resent))
      startHandshake(.open, now: now, &actions)
    case .unresponsive(_, let backoff):
      queued.append((id, command, single, resent))
      startHandshake(.probe(backoff), now: now, &actions)
    }
  }

  /// Hands the link a command and notes who waits for its answer.
  mutating func send(_ waiter: Sent, _ command: Command, now: UInt64) {
    sent[endpoint.send(command: command, now: now)] = waiter
  }

  /// A caller's command has its answer: the reply, the resend after a restart, or the keepalive's verdict.
  private mutating func answered(
    _ id: RequestID, _ command: Command, single: Bool, resent: Bool, _ result: Result<Message, BoardClientError>,
    now: UInt64, _ actions: inout [Action]
  ) {
    let reply = reply(to: command, from: result, now: now)
    if single, !resent {
      // Any command unanswered through every retry says what a missed keepalive says: the board stopped
      // answering (a PLAY in flight then must not leave it idle once it answers again).
      if case .failure(let error) = reply, case .timeout = error {
        keepaliveFailed("\(command.type)", error, now: now, &actions)
      }
      // Refused because the board restarted under it: it did not act, so it goes once more in the new
      // session. RESET's retransmission reaching the new boot is refused that way on purpose: never twice.
      if case .failure(.boardRestarted) = reply, command.type != .reset {
        resentAfterRestart += 1
        if phase == .open { phase = .idle }
        request(id, command, single: true, resent: true, now: now, &actions)
        return
      }
    }
    actions.append(.answer(id, reply))
  }

  /// The reply a command's answer brings, or its typed error; tracks what plays and the board's INFO.
  private mutating func reply(
    to command: Command, from result: Result<Message, BoardClientError>, now: UInt64
  ) -> CommandResult {
    switch result {
    case .success(.reply(_, let reply)):
      if lease.track(command, reply) { startLeaseRenewal(now: now) }
      if case .getInfo = command, case .info(let info) = reply { self.info = info }
      return .success(reply)
    case .success(.nak(_, let nak)):
      if nak.code == .noSession || nak.code == .staleNonce { return .failure(.boardRestarted) }
      return .failure(.nak(command: command.type, nak))
    case .success: return .failure(.unexpectedReply(command: command.type))
    case .failure(let error): return .failure(error)
    }
  }

  /// Settles the frame `sequence` with its answer (or failure), for whoever waits for it.
  mutating func settle(
    _ sequence: UInt16, _ result: Result<Message, BoardClientError>, now: UInt64, _ actions: inout [Action]
  ) {
    guard let waiter = sent.removeValue(forKey: sequence) else { return }
    switch waiter {
    case .caller(let id, let command, let single, let resent):
      answered(id, command, single: single, resent: resent, result, now: now, &actions)
    case .hello: helloAnswered(result, now: now, &actions)
    case .handshakeLease: leaseAnswered(result, now: now, &actions)
    case .handshakeStatus: statusAnswered(result, now: now, &actions)
    case .keepalive(let keepalive):
      if case .failure(let error) = result { keepaliveFailed(keepalive.rawValue, error, now: now, &actions) }
    }
  }

  /// Fails every caller (in flight, queued, waiting for the session) with `error`.
  mutating func failEveryone(_ error: BoardClientError, _ actions: inout [Action]) {
    for case .caller(let id, _, _, _) in sent.values { actions.append(.answer(id, .failure(error))) }
    sent.removeAll()
    for item in queued { actions.append(.answer(item.id, .failure(error))) }
    queued.removeAll()
    for id in openers { actions.append(.opened(id, .failure(error))) }
    openers.removeAll()
  }

  // MARK: - The link

  private mutating func deliver(_ deliveries: [LinkEndpoint.Delivery], now: UInt64, _ actions: inout [Action]) {
    for delivery in deliveries {
      switch delivery {
      case .answer(let sequence, let message):
        settle(sequence, .success(message), now: now, &actions)
      case .failed(let sequence, let type):
        if phase == .open { phase = .idle }
        settle(sequence, .failure(.timeout(raw: type)), now: now, &actions)
      case .event(_, let event):
        if case .playEnded(let ended) = event { lease.ended(ended.token) }
        actions.append(.report(.event(event)))
      case .actuators(let trace):
        actions.append(.report(.actuators(trace)))
      case .peerRestarted(let nonce):
        // A handshake under way (an unresponsive board's probe among them) reopens and reports by itself.
        guard phase == .open || phase == .idle, let info, info.bootNonce != nonce else { break }
        lease.forgetAll()
        startHandshake(.restarted, now: now, &actions)
      case .command, .eventAcknowledged, .eventsStalled, .dropped, .unreadable:
        break  // board-side deliveries, or line noise the counters already record
      }
    }
  }

  private mutating func deadlineReached(now: UInt64, _ actions: inout [Action]) {
    probeIfDue(now: now)
    renewLeaseIfDue(now: now)
    deliver(endpoint.poll(now: now), now: now, &actions)
    if endpoint.sender.isPaused {
      // The link gave up on what was in flight; commands queued behind it would wait for a window that
      // never opens. Fail them too: the next command re-synchronises with a handshake.
      actions.append(.discardQueuedOutput)
      let abandoned = endpoint.restart(nonce: endpoint.nonce, firstSequence: endpoint.sender.nextSequence)
      for case .failed(let sequence, let type) in abandoned {
        settle(sequence, .failure(.timeout(raw: type)), now: now, &actions)
      }
    }
  }

  /// Starts the retry whose time has come: a probing HELLO, or reopening the port (or giving up on it).
  private mutating func startWhatIsDue(now: UInt64, _ actions: inout [Action]) {
    switch phase {
    case .unresponsive(let retryAtMs, let backoff) where retryAtMs <= now:
      startHandshake(.probe(backoff), now: now, &actions)
    case .detached(var reconnection?):
      guard let due = reconnection.retryAtMs, due <= now else { return }
      if let limit = options.reconnect?.giveUpAfter, now - reconnection.beganMs > limit.milliseconds {
        close(&actions)
        return
      }
      reconnection.retryAtMs = nil
      phase = .detached(reconnection)
      actions.append(.reopenTransport)
    default: break
    }
  }

  private mutating func lost(_ reason: String, now: UInt64, _ actions: inout [Action]) {
    guard isAttached else { return }
    var reconnection: Reconnection?
    if case .handshaking(let handshake) = phase, case .reattach(let reopening) = handshake.purpose {
      reconnection = reopening  // the same reconnection goes on, with its pauses and its limit
    } else if let policy = options.reconnect {
      reconnection = Reconnection(beganMs: now, backoff: policy.backoff, retryAtMs: nil)
    }
    failEveryone(.disconnected(reason: reason), &actions)
    // What was in flight has its answer; the handshake after reconnecting starts the keepalives again.
    _ = endpoint.restart(nonce: endpoint.nonce, firstSequence: endpoint.sender.nextSequence)
    idleProbeAtMs = nil
    leaseRenewalAtMs = nil
    lease.forgetAll()
    info = nil
    noise = (0, 0)
    actions.append(.report(.disconnected(reason: reason)))
    if var next = reconnection {
      next.retryAtMs = now + next.backoff.next().milliseconds
      reconnection = next
    }
    phase = .detached(reconnection)
  }

  private mutating func close(_ actions: inout [Action]) {
    guard phase != .closed else { return }
    phase = .closed
    failEveryone(.closed, &actions)
    idleProbeAtMs = nil
    leaseRenewalAtMs = nil
    actions.append(.report(.closed))
    actions.append(.finish)
  }

  /// Counts bytes that brought no valid frame, and reports a line that carries nothing else.
  private mutating func noteNoise(_ count: Int, framesDecoded: Bool, _ actions: inout [Action]) {
    guard !framesDecoded else {
      noise = (0, 0)
      return
    }
    noise.sinceFrame += count
    noise.unreported += count
    guard noise.sinceFrame >= options.noiseThreshold, noise.unreported >= options.noiseThreshold else { return }
    actions.append(.report(.unreadableLine(bytes: noise.unreported)))
    noise.unreported = 0
  }
}

extension Duration {
  /// The duration in whole milliseconds (negative ones count as zero): the session's time base.
  var milliseconds: UInt64 {
    let (seconds, attoseconds) = components
    return UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
  }
}
