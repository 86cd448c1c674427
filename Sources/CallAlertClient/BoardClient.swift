import CallAlertProtocol
import CallAlertRuntime
import CallAlertSerial
import CallAlertTransport
import Synchronization

/// A connection to one board over any transport: the handshake, commands with retransmission and typed
/// errors, the board's events, lease renewal while anything plays, and recovery when the board restarts
/// or the cable is pulled and plugged in again.
///
/// The link itself is ``LinkEndpoint``'s pure state machine; this actor only moves bytes and wakes it. The
/// jobs around it are each their own piece: answers are matched to callers by a ``CommandTable``, what plays
/// (and so whether the lease needs renewing) is a ``LeaseKeeper``, the link's deadlines are one long-lived
/// `DeadlineTimer`, and reconnection pauses come from the one `Backoff` rule. It wakes for bytes and for
/// deadlines, never on a polling timer.
public actor BoardClient<C: Clock> where C.Duration == Duration {
  /// Runs on the process's event loop, beside the descriptors it reads and writes, so that bytes and
  /// requests reach it without a hand-off between threads (see ``DescriptorEventLoop``).
  public nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }

  /// Events from the board and from the connection, in order.
  public nonisolated let events: AsyncStream<BoardClientEvent>
  /// The board's INFO from the current session; nil while not connected.
  public private(set) var info: BoardInfo?
  /// What the current session negotiated (version, payload, window); nil while not connected.
  public private(set) var terms: SessionTerms?
  /// Tokens that play on the board as far as this client knows (for lease renewal).
  public var playingTokens: Set<UInt32> { lease.tokens }
  /// What plays, and so whether the lease needs renewing.
  var lease = LeaseKeeper()

  let eventSink: AsyncStream<BoardClientEvent>.Continuation
  let clock: C
  /// The link's deadlines: one loop for the client's life, woken by ``pollDeadlines()``.
  private let deadlines: DeadlineTimer<C>
  private var deadlineLoop: Task<Void, Never>?
  let options: BoardClientOptions
  private var endpoint: LinkEndpoint
  var transport: (any ByteTransport)?
  private var generation = 0
  private var writer: AsyncStream<(epoch: Int, bytes: [UInt8])>.Continuation?
  /// Chunks handed to the writer task and not yet written (or dropped) by it.
  private var writerBacklog = WriterBacklog()
  /// Bumped whenever the link starts over: output of an earlier epoch still waiting for a slow port is
  /// dropped, so that a HELLO is not queued behind retransmissions of frames already given up.
  private let outputEpoch = OutputEpoch()
  private var reader: Task<Void, Never>?
  /// When the lease is next renewed while something plays: one of the link's deadlines, like the idle probe.
  private var nextLeaseRenewalMs: UInt64?
  /// The LEASE in flight, if any.
  private var leaseRenewal: Task<Void, Never>?
  var handshake: Task<Result<BoardInfo, BoardClientError>, Never>?
  private var recovery: Task<Void, Never>?
  /// When the next idle PING is due, on the link's clock (``BoardClientOptions/Liveness/idleProbe``): one of
  /// the link's deadlines, so the probe wakes the event loop's timer and no thread of the pool.
  var nextIdleProbeMs: UInt64?
  /// The idle PING in flight, if any.
  var idleProbe: Task<Void, Never>?
  /// The handshake loop while the board does not answer.
  var probing: Task<Void, Never>?
  /// Whether a keepalive went unanswered and the board has not answered since.
  public internal(set) var isUnresponsive = false
  /// Bytes received since the last valid frame, and those of them not yet reported as line noise.
  var noise = (sinceFrame: 0, unreported: 0)
  /// What the link brings for a command: the board's answer, or why there is none.
  typealias LinkResult = Result<Message, BoardClientError>

  /// Callers waiting for answers, and the answers a ``send(inOrder:onAnswer:)`` batch has not claimed yet.
  private var inFlight = CommandTable<CheckedContinuation<LinkResult, Never>, LinkResult>()
  var needsHandshake = true
  private var resentAfterRestart = 0
  var isClosed = false
  /// The serial number of the board this client first connected to: a reconnect must find the same one.
  private var boardSerial: [UInt8]?

  /// Creates a client over `transport`; nothing is sent until ``connect()``.
  public init(transport: any ByteTransport, clock: C, options: BoardClientOptions = BoardClientOptions()) {
    self.clock = clock
    self.options = options
    deadlines = DeadlineTimer(clock: clock, alarm: LoopTimer.alarm(on: clock))
    // A random first sequence: a board that still remembers the previous host's HELLO must not take this
    // client's HELLO for a retransmission of it.
    endpoint = LinkEndpoint(role: .host, timing: options.timing, firstSequence: UInt16.random(in: 0...UInt16.max))
    (events, eventSink) = AsyncStream.makeStream(of: BoardClientEvent.self)
    self.transport = transport
  }

  deinit { deadlineLoop?.cancel() }

  /// The client's clock in milliseconds since it was made (the link's time base).
  public var nowMs: UInt64 { deadlines.nowMs }

  /// Link statistics: retransmissions made, frames dropped by the decoder, and commands sent again because
  /// the board had restarted under them (see ``send(_:)``).
  public var linkStatistics: (retransmissions: UInt32, decoder: DecoderCounters, resentAfterRestart: Int) {
    (endpoint.sender.retransmissions, endpoint.decoder.counters, resentAfterRestart)
  }

  /// Commands and results this client still tracks (waiting callers, batched commands, kept results):
  /// zero once every caller has its result. For tests.
  var pendingBookkeeping: Int { inFlight.count }

  // MARK: - Connecting

  /// Opens the session: HELLO, version negotiation, and the lease length. Returns the board's INFO.
  @discardableResult
  public func connect() async throws(BoardClientError) -> BoardInfo {
    guard !isClosed else { throw .closed }
    return try await ensureSession()
  }

  /// Closes the connection; waiting commands fail with ``BoardClientError/closed``.
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    for task in [reader, deadlineLoop, leaseRenewal, recovery, idleProbe, probing] { task?.cancel() }
    nextIdleProbeMs = nil
    nextLeaseRenewalMs = nil
    handshake?.cancel()
    writer?.finish()
    transport?.close()
    transport = nil
    failWaiting(.closed)
    eventSink.yield(.closed)
    eventSink.finish()
  }

  // MARK: - Commands

  /// Sends a command and returns the board's reply; NAKs, timeouts and disconnects throw.
  ///
  /// A command refused because the board restarted under it (`no_session` or `stale_nonce`: the board did
  /// not act on it) is sent once more after the new session opens, so a reboot the client had not noticed
  /// yet does not fail the caller. RESET is the exception: its retransmission reaching the new boot is
  /// refused that way on purpose, so that a board never resets twice for one RESET.
  public func send(_ command: Command) async throws(BoardClientError) -> Reply {
    _ = try await ensureSession()
    let first = reply(to: command, from: await exchange(command))
    // Any command that went unanswered through every retry says what a missed keepalive says: the board has
    // stopped answering (a PLAY in flight when it did must not leave it idle once it answers again).
    if case .failure(let error) = first, case .timeout = error { keepaliveFailed("\(command.type)", error) }
    guard case .failure(.boardRestarted) = first, command.type != .reset else { return try first.get() }
    needsHandshake = true
    resentAfterRestart += 1
    _ = try await ensureSession()
    return try reply(to: command, from: await exchange(command)).get()
  }

  /// Sends several commands in this order and returns each one's reply or error, in the same order.
  ///
  /// All of them are handed to the link at once, so the link keeps its window full and they reach the
  /// board in this order (sending each from its own task would leave the order to the scheduler).
  /// `onAnswer` is called with each command's index as its result is taken, in order. Only a failure to
  /// open the session throws; a command that fails does not stop the others from being sent.
  public func send(
    inOrder commands: [Command], onAnswer: (Int, Result<Reply, BoardClientError>) -> Void = { _, _ in }
  ) async throws(BoardClientError) -> [Result<Reply, BoardClientError>] {
    _ = try await ensureSession()
    guard !isClosed else { throw .closed }
    guard transport != nil else { throw .disconnected(reason: "no transport") }
    let now = nowMs
    let sequences = commands.map { endpoint.send(command: $0, now: now) }
    inFlight.beginBatch(sequences)
    flush()
    reschedule()
    var results: [Result<Reply, BoardClientError>] = []
    results.reserveCapacity(commands.count)
    for (index, sequence) in sequences.enumerated() {
      let result = await withCheckedContinuation { continuation in
        if let early = inFlight.claim(sequence, orWait: continuation) { continuation.resume(returning: early) }
      }
      let answer = reply(to: commands[index], from: result)
      onAnswer(index, answer)
      results.append(answer)
    }
    return results
  }

  /// The reply a command's answer brings, or its typed error; tracks what plays.
  private func reply(to command: Command, from result: LinkResult) -> Result<Reply, BoardClientError> {
    switch result {
    case .success(.reply(_, let reply)):
      track(command, reply)
      return .success(reply)
    case .success(.nak(_, let nak)):
      if nak.code == .noSession || nak.code == .staleNonce { return .failure(.boardRestarted) }
      return .failure(.nak(command: command.type, nak))
    case .success: return .failure(.unexpectedReply(command: command.type))
    case .failure(let error): return .failure(error)
    }
  }

  /// GET_INFO: the board's INFO now (``info`` is the one from the handshake; the table may have changed since).
  public func currentInfo() async throws(BoardClientError) -> BoardInfo {
    guard case .info(let info) = try await send(.getInfo) else { throw .unexpectedReply(command: .getInfo) }
    self.info = info
    return info
  }

  /// GET_STATUS.
  public func status() async throws(BoardClientError) -> BoardStatus {
    guard case .status(let status) = try await send(.getStatus) else { throw .unexpectedReply(command: .getStatus) }
    return status
  }

  /// PLAY; returns the cap the board applies.
  @discardableResult
  public func play(_ request: PlayRequest) async throws(BoardClientError) -> UInt16 {
    guard case .playing(let cap) = try await send(.play(request)) else { throw .unexpectedReply(command: .play) }
    return cap
  }

  /// STOP one token, or everything with ``Command/stopAll``; returns how many plays stopped.
  @discardableResult
  public func stop(token: UInt32 = Command.stopAll) async throws(BoardClientError) -> Int {
    guard case .stopped(let count) = try await send(.stop(token: token)) else { throw .unexpectedReply(command: .stop) }
    return Int(count)
  }

  // MARK: - Session

  func ensureSession() async throws(BoardClientError) -> BoardInfo {
    if isClosed { throw .closed }
    // The first use opens the session, whether it is connect() or a command.
    if reader == nil, let transport { attach(transport) }
    if let handshake { return try await handshake.value.get() }
    if !needsHandshake, let info { return info }
    guard transport != nil else { throw .disconnected(reason: "no transport") }
    let task = Task { await self.performHandshake() }
    handshake = task
    let result = await task.value
    handshake = nil
    return try result.get()
  }

  private func performHandshake() async -> Result<BoardInfo, BoardClientError> {
    let hello = options.hello
    switch await helloExchange(hello) {
    case .success(.reply(_, .info(let info))):
      guard
        let terms = SessionTerms.negotiate(
          hostMin: hello.minVersion, hostMax: hello.maxVersion, hostMaxPayload: Int(hello.maxPayload),
          hostWindow: Int(hello.window), boardMin: info.minVersion, boardMax: info.maxVersion,
          boardMaxPayload: Int(info.capabilities.maxPayload), boardWindow: Int(info.capabilities.window))
      else {
        return .failure(
          .versionMismatch(
            boardMin: info.minVersion, boardMax: info.maxVersion, hostMin: hello.minVersion, hostMax: hello.maxVersion))
      }
      endpoint.apply(terms)
      self.terms = terms
      self.info = info
      if boardSerial == nil { boardSerial = info.serial }
      needsHandshake = false
      startIdleProbe()
      if info.capabilities.leaseMs != options.leaseMs {
        if case .failure(let error) = await exchange(.lease(ms: options.leaseMs)) { return .failure(error) }
        self.info?.capabilities.leaseMs = options.leaseMs
      }
      return .success(self.info ?? info)
    case .success(.nak(_, let nak)):
      guard let board = nak.supportedVersions else { return .failure(.nak(command: .hello, nak)) }
      return .failure(
        .versionMismatch(boardMin: board.min, boardMax: board.max, hostMin: hello.minVersion, hostMax: hello.maxVersion)
      )
    case .success: return .failure(.unexpectedReply(command: .hello))
    case .failure(let error): return .failure(error)
    }
  }

  /// Starts the link over and sends HELLO, up to ``BoardClientOptions/handshakeAttempts`` times while it
  /// goes unanswered: a board behind a slow line still busy with what an earlier session sent (or a board
  /// still booting) gets a few of HELLO's short timeouts in a row, each after dropping output still queued.
  private func helloExchange(_ hello: Hello) async -> LinkResult {
    var attempt = 1
    while true {
      outputEpoch.advance()
      let abandoned = endpoint.restart(nonce: endpoint.nonce, firstSequence: endpoint.sender.nextSequence)
      for case .failed(let sequence, _) in abandoned { complete(sequence, with: .failure(.boardRestarted)) }
      lease.forgetAll()
      let answer = await exchange(.hello(hello))
      guard case .failure(.timeout) = answer, attempt < options.handshakeAttempts, !isClosed else { return answer }
      attempt += 1
    }
  }

  /// Sends without waiting for a session (the handshake's own commands).
  func exchange(_ command: Command) async -> LinkResult {
    guard !isClosed else { return .failure(.closed) }
    guard transport != nil else { return .failure(.disconnected(reason: "no transport")) }
    let sequence = endpoint.send(command: command, now: nowMs)
    flush()
    reschedule()
    return await withCheckedContinuation { inFlight.wait(for: sequence, $0) }
  }

  private func track(_ command: Command, _ reply: Reply) {
    if lease.track(command, reply) { startLeaseRenewal() }
  }

  /// Renews the lease every third of it while something plays, from a lease's third from now; the renewal's
  /// time is one of the link's deadlines (see ``reschedule()``), so a ringing board costs no sleeping task.
  private func startLeaseRenewal() {
    guard nextLeaseRenewalMs == nil else { return }
    nextLeaseRenewalMs = nowMs + DeadlineTimer<C>.milliseconds(LeaseKeeper.renewalPeriod(leaseMs: options.leaseMs))
    reschedule()
  }

  /// Sends LEASE when its time has come while something plays, and sets the next one; stops once nothing
  /// plays. A LEASE still waiting for its answer is not doubled.
  private func renewLeaseIfDue() {
    guard let due = nextLeaseRenewalMs, nowMs >= due else { return }
    guard lease.isPlaying, !isClosed else {
      nextLeaseRenewalMs = nil
      return
    }
    nextLeaseRenewalMs = nowMs + DeadlineTimer<C>.milliseconds(LeaseKeeper.renewalPeriod(leaseMs: options.leaseMs))
    guard leaseRenewal == nil else { return }
    leaseRenewal = Task(executorPreference: DescriptorEventLoop.shared) { [weak self] in await self?.renewLease() }
  }

  /// Renews the lease once.
  private func renewLease() async {
    defer { leaseRenewal = nil }
    guard lease.isPlaying, !isClosed else { return }
    if case .failure(let error) = await exchange(.lease(ms: options.leaseMs)) { keepaliveFailed("LEASE", error) }
  }

  // MARK: - Bytes and time

  private func attach(_ transport: any ByteTransport) {
    generation += 1
    let generation = self.generation
    self.transport = transport
    let (stream, continuation) = AsyncStream.makeStream(of: (epoch: Int, bytes: [UInt8]).self)
    writer?.finish()
    writer = continuation
    writerBacklog = WriterBacklog()
    let backlog = writerBacklog
    // One writer per transport keeps frames in the order the link produced them, for a transport that can
    // only write with a wait (and behind a chunk that had to wait); see `flush()`.
    let epoch = outputEpoch
    if deadlineLoop == nil {
      let deadlines = self.deadlines
      let poll: @Sendable () async -> Void = { [weak self] in await self?.pollDeadlines() }
      deadlineLoop = Task(executorPreference: DescriptorEventLoop.shared) { await deadlines.run(onDeadline: poll) }
    }
    Task(executorPreference: DescriptorEventLoop.shared) {
      for await chunk in stream {
        defer { backlog.taken() }
        guard chunk.epoch == epoch.current else { continue }
        do { try await transport.write(chunk.bytes) } catch { break }
      }
    }
    reader = Task(executorPreference: DescriptorEventLoop.shared) { [weak self] in
      do {
        for try await chunk in transport.incoming {
          guard let self else { return }
          await self.received(chunk, generation: generation)
        }
        await self?.lost(generation: generation, reason: "the port was closed")
      } catch {
        await self?.lost(generation: generation, reason: "\(error)")
      }
    }
  }

  private func received(_ chunk: [UInt8], generation: Int) {
    guard generation == self.generation else { return }
    let framesBefore = endpoint.decoder.counters.frames
    handle(endpoint.receive(chunk, now: nowMs))
    noteNoise(chunk.count, framesDecoded: endpoint.decoder.counters.frames != framesBefore)
    flush()
    reschedule()
  }

  private func handle(_ deliveries: [LinkEndpoint.Delivery]) {
    for delivery in deliveries {
      switch delivery {
      case .answer(let sequence, let message):
        complete(sequence, with: .success(message))
      case .failed(let sequence, let type):
        needsHandshake = true
        complete(sequence, with: .failure(.timeout(raw: type)))
      case .event(_, let event):
        if case .playEnded(let ended) = event { lease.ended(ended.token) }
        eventSink.yield(.event(event))
      case .actuators(let trace):
        eventSink.yield(.actuators(trace))
      case .peerRestarted(let nonce):
        // While unresponsive, the probing handshake reopens the session and reports it.
        if handshake == nil, !isUnresponsive, let info, info.bootNonce != nonce { boardRestarted() }
      case .command, .eventAcknowledged, .eventsStalled, .dropped, .unreadable:
        break  // board-side deliveries, or line noise the counters already record
      }
    }
  }

  private func boardRestarted() {
    needsHandshake = true
    lease.forgetAll()
    guard recovery == nil else { return }
    recovery = Task { [weak self] in
      guard let self else { return }
      do throws(BoardClientError) {
        let info = try await self.ensureSession()
        await self.finishRecovery(.restarted(info))
      } catch {
        await self.finishRecovery(nil)
      }
    }
  }

  private func finishRecovery(_ event: BoardClientEvent?) {
    recovery = nil
    if let event { eventSink.yield(event) }
  }

  private func lost(generation: Int, reason: String) {
    guard generation == self.generation, !isClosed else { return }
    transport?.close()
    transport = nil
    writer?.finish()
    writer = nil
    deadlines.schedule(atMs: nil)
    nextIdleProbeMs = nil  // the handshake after reconnecting starts the probes again
    nextLeaseRenewalMs = nil
    needsHandshake = true
    lease.forgetAll()
    info = nil
    // Unplugged: the reconnect policy takes over from the probing handshakes.
    probing?.cancel()
    probing = nil
    isUnresponsive = false
    noise = (0, 0)
    failWaiting(.disconnected(reason: reason))
    eventSink.yield(.disconnected(reason: reason))
    if let reconnect = options.reconnect { startReconnecting(reconnect) }
  }

  private func startReconnecting(_ policy: BoardClientOptions.Reconnect) {
    let clock = self.clock
    let began = clock.now
    recovery = Task { [weak self] in
      var backoff = policy.backoff
      while !Task.isCancelled {
        do { try await clock.sleep(for: backoff.next(), tolerance: nil) } catch { return }
        guard let self else { return }
        if let limit = policy.giveUpAfter, began.duration(to: clock.now) > limit {
          await self.close()
          return
        }
        if let transport = try? await policy.open(), await self.reattach(transport) { return }
      }
    }
  }

  /// Tries a reopened transport: true when the same board answered and the session is open again.
  private func reattach(_ transport: any ByteTransport) async -> Bool {
    attach(transport)
    do throws(BoardClientError) {
      let info = try await ensureSession()
      if let boardSerial, info.serial != boardSerial {
        throw .wrongBoard(
          expected: String(decoding: boardSerial, as: UTF8.self), found: String(decoding: info.serial, as: UTF8.self))
      }
      let status = try await self.status()
      recovery = nil
      eventSink.yield(.reconnected(info, status))
      return true
    } catch {
      generation += 1  // the reader of this transport no longer counts
      transport.close()
      self.transport = nil
      await transport.waitUntilReleased()  // the next try must not find the port held by this one
      return false
    }
  }

  /// Hands a command's result to its caller, or keeps it until a batch's caller waits for it.
  private func complete(_ sequence: UInt16, with result: LinkResult) {
    inFlight.complete(sequence, with: result)?.resume(returning: result)
  }

  private func failWaiting(_ error: BoardClientError) {
    for continuation in inFlight.failAll(with: .failure(error)) { continuation.resume(returning: .failure(error)) }
  }

  /// Sends what the link produced: straight to the line when the writer task holds nothing (a descriptor
  /// channel writes it at once, or queues it behind what waits), else through the writer task, behind its
  /// chunks. The straight way spares a task hop per frame.
  private func flush() {
    let out = endpoint.takeOutput()
    guard !out.isEmpty else { return }
    if writerBacklog.isEmpty, let transport, transport.sendWithoutWaiting(out) { return }
    writerBacklog.handed()
    writer?.yield((outputEpoch.current, out))
  }

  /// Sets the one wake-up for the link's next deadline, or the next keepalive (idle PING, lease renewal) if
  /// that comes first.
  func reschedule() {
    deadlines.schedule(atMs: Self.earliest(endpoint.nextDeadline, Self.earliest(nextIdleProbeMs, nextLeaseRenewalMs)))
  }

  /// The earlier of two optional times (nil: none); no array on this path, which every frame takes.
  private static func earliest(_ first: UInt64?, _ second: UInt64?) -> UInt64? {
    guard let first else { return second }
    guard let second else { return first }
    return min(first, second)
  }

  private func pollDeadlines() {
    probeIfDue()
    renewLeaseIfDue()
    handle(endpoint.poll(now: nowMs))
    if endpoint.sender.isPaused {
      // The link gave up on what was in flight; commands queued behind it would wait for a window that
      // never opens. Fail them too: the next command re-synchronises with a handshake.
      outputEpoch.advance()
      let abandoned = endpoint.restart(nonce: endpoint.nonce, firstSequence: endpoint.sender.nextSequence)
      for case .failed(let sequence, let type) in abandoned {
        complete(sequence, with: .failure(.timeout(raw: type)))
      }
    }
    flush()
    reschedule()
  }
}

/// The link's output epoch, read by the writer task without a hop to the actor.
final class OutputEpoch: Sendable {
  private let value = Atomic<Int>(0)

  var current: Int { value.load(ordering: .acquiring) }

  func advance() { value.add(1, ordering: .releasing) }
}
