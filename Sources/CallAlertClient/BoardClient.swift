import CallAlertProtocol
import CallAlertRuntime
import CallAlertSerial
import CallAlertTransport
import Synchronization

/// A connection to one board over any transport: the handshake, commands with retransmission and typed
/// errors, the board's events, lease renewal while anything plays, and recovery when the board restarts
/// or the cable is pulled and plugged in again.
///
/// Every rule of the session is ``BoardSession``'s pure state machine; this actor is the thin part around it:
/// it moves bytes (one write path, ``BoardLine``), wakes the machine at its deadlines with the one
/// `DeadlineTimer`, hands answers to the callers waiting for them (a ``CommandTable``), and carries out the
/// machine's actions. It wakes for bytes and for deadlines, never on a polling timer.
public actor BoardClient<C: Clock> where C.Duration == Duration {
  /// Runs on the process's event loop, beside the descriptors it reads and writes, so that bytes and
  /// requests reach it without a hand-off between threads (see ``DescriptorEventLoop``).
  public nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }

  /// Events from the board and from the connection, in order.
  public nonisolated let events: AsyncStream<BoardClientEvent>
  private let eventSink: AsyncStream<BoardClientEvent>.Continuation
  private let options: BoardClientOptions
  /// The session's deadlines: one loop for the client's life, woken by `deadlineReached()`.
  private let deadlines: DeadlineTimer<C>
  private var deadlineLoop: Task<Void, Never>?
  private var session: BoardSession
  /// The transport and its reader and writer; nil while there is none.
  private var line: BoardLine?
  /// A transport not read yet: the first use of the client opens the session.
  private var unread: (any ByteTransport)?
  /// Bumped with each transport: a reader of an earlier one no longer counts.
  private var generation = 0
  private var nextRequest: BoardSession.RequestID = 0
  /// Callers waiting for answers, and the answers a ``send(inOrder:onAnswer:)`` batch has not claimed yet.
  private var waiters = CommandTable<
    BoardSession.RequestID, CheckedContinuation<BoardSession.CommandResult, Never>, BoardSession.CommandResult
  >()
  /// Callers waiting for the session to open.
  private var openers: [BoardSession.RequestID: CheckedContinuation<Result<BoardInfo, BoardClientError>, Never>] =
    [:]
  /// Bumped whenever the link starts over: output of an earlier epoch still waiting for a slow port is
  /// dropped, so that a HELLO is not queued behind retransmissions of frames already given up.
  private let outputEpoch = OutputEpoch()

  /// Creates a client over `transport`; nothing is sent until ``connect()`` or a command.
  public init(transport: any ByteTransport, clock: C, options: BoardClientOptions = BoardClientOptions()) {
    self.options = options
    deadlines = DeadlineTimer(clock: clock, alarm: LoopTimer.alarm(on: clock))
    // A random first sequence: a board that still remembers the previous host's HELLO must not take this
    // client's HELLO for a retransmission of it.
    session = BoardSession(options: options, firstSequence: UInt16.random(in: 0...UInt16.max))
    (events, eventSink) = AsyncStream.makeStream(of: BoardClientEvent.self)
    unread = transport
  }

  deinit { deadlineLoop?.cancel() }

  /// The client's clock in milliseconds since it was made (the session's time base).
  public var nowMs: UInt64 { deadlines.nowMs }
  /// The board's INFO from the current session; nil while not connected.
  public var info: BoardInfo? { session.info }
  /// What the current session negotiated (version, payload, window); nil while not connected.
  public var terms: SessionTerms? { session.terms }
  /// Tokens that play on the board as far as this client knows (for lease renewal).
  public var playingTokens: Set<UInt32> { session.lease.tokens }
  /// Whether a keepalive went unanswered and the board has not answered since.
  public var isUnresponsive: Bool { session.isUnresponsive }
  /// Bytes received since the last valid frame (every byte received, when none was ever valid): a
  /// handshake that failed on a line carrying bytes is a wrong baud rate or another device, not silence.
  public var unreadableBytes: Int { session.noise.sinceFrame }

  /// Link statistics: retransmissions made, frames dropped by the decoder, and commands sent again because
  /// the board had restarted under them (see ``send(_:)``).
  public var linkStatistics: (retransmissions: UInt32, decoder: DecoderCounters, resentAfterRestart: Int) {
    (session.endpoint.sender.retransmissions, session.endpoint.decoder.counters, session.resentAfterRestart)
  }

  /// Commands and results this client still tracks (waiting callers, batched commands, kept results):
  /// zero once every caller has its result. For tests.
  var pendingBookkeeping: Int { waiters.count + openers.count }

  // MARK: - Connecting

  /// Opens the session: HELLO, version negotiation, and the lease length. Returns the board's INFO.
  @discardableResult
  public func connect() async throws(BoardClientError) -> BoardInfo {
    startReading()
    let id = newRequest()
    let result = await withCheckedContinuation { continuation in
      openers[id] = continuation
      step(.connect(id))
    }
    return try result.get()
  }

  /// Closes the connection; waiting commands fail with ``BoardClientError/closed``.
  public func close() { step(.close) }

  // MARK: - Commands

  /// Sends a command and returns the board's reply; NAKs, timeouts and disconnects throw.
  ///
  /// A command refused because the board restarted under it (`no_session` or `stale_nonce`: the board did
  /// not act on it) is sent once more after the new session opens, so a reboot the client had not noticed
  /// yet does not fail the caller. RESET is the exception: its retransmission reaching the new boot is
  /// refused that way on purpose, so that a board never resets twice for one RESET.
  public func send(_ command: Command) async throws(BoardClientError) -> Reply {
    startReading()
    let id = newRequest()
    return try await withCheckedContinuation { continuation in
      waiters.wait(for: id, continuation)
      step(.command(id, command))
    }.get()
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
    try await connect()
    let ids = commands.map { _ in newRequest() }
    waiters.beginBatch(ids)
    step(.batch(Array(zip(ids, commands)).map { (id: $0.0, command: $0.1) }))
    var results: [Result<Reply, BoardClientError>] = []
    results.reserveCapacity(commands.count)
    for (index, id) in ids.enumerated() {
      let answer = await withCheckedContinuation { continuation in
        if let early = waiters.claim(id, orWait: continuation) { continuation.resume(returning: early) }
      }
      onAnswer(index, answer)
      results.append(answer)
    }
    return results
  }

  /// GET_INFO: the board's INFO now (``info`` is the one from the handshake; the table may have changed since).
  public func currentInfo() async throws(BoardClientError) -> BoardInfo {
    guard case .info(let info) = try await send(.getInfo) else { throw .unexpectedReply(command: .getInfo) }
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

  // MARK: - Driving the session

  private func newRequest() -> BoardSession.RequestID {
    nextRequest += 1
    return nextRequest
  }

  /// Steps the session, carries out its actions, writes its output and sets the timer for its next deadline.
  private func step(_ input: BoardSession.Input) {
    for action in session.handle(input, now: nowMs) { perform(action) }
    let output = session.takeOutput()
    if !output.isEmpty { line?.send(output, epoch: outputEpoch.current) }
    deadlines.schedule(atMs: session.phase == .closed ? nil : session.nextDeadline)
  }

  private func perform(_ action: BoardSession.Action) {
    switch action {
    case .answer(let id, let result): waiters.complete(id, with: result)?.resume(returning: result)
    case .opened(let id, let result): openers.removeValue(forKey: id)?.resume(returning: result)
    case .report(let event): eventSink.yield(event)
    case .discardQueuedOutput: outputEpoch.advance()
    case .reopenTransport: reopen()
    case .abandonTransport: abandon()
    case .finish: finish()
    }
  }

  /// The first use of the client starts reading its transport, and the deadline loop.
  private func startReading() {
    guard let transport = unread else { return }
    unread = nil
    attach(transport)
  }

  private func attach(_ transport: any ByteTransport) {
    generation += 1
    let generation = self.generation
    if deadlineLoop == nil {
      let deadlines = self.deadlines
      let wake: @Sendable () async -> Void = { [weak self] in await self?.deadlineReached() }
      deadlineLoop = Task(executorPreference: DescriptorEventLoop.shared) { await deadlines.run(onDeadline: wake) }
    }
    line = BoardLine(
      transport: transport, epoch: outputEpoch,
      received: { [weak self] chunk in await self?.received(chunk, generation: generation) },
      ended: { [weak self] reason in await self?.lost(generation: generation, reason: reason) })
  }

  private func received(_ chunk: [UInt8], generation: Int) {
    guard generation == self.generation else { return }
    step(.received(chunk))
  }

  private func deadlineReached() { step(.deadline) }

  private func lost(generation: Int, reason: String) {
    guard generation == self.generation, line != nil else { return }
    line?.close()
    line = nil
    step(.transportLost(reason: reason))
  }

  /// Runs the reconnect policy's opener once; the session decides what follows.
  private func reopen() {
    guard let open = options.reconnect?.open else { return }
    Task(executorPreference: DescriptorEventLoop.shared) { [weak self] in
      let transport = try? await open()
      await self?.reopened(transport)
    }
  }

  private func reopened(_ transport: (any ByteTransport)?) {
    guard let transport else { return step(.reopenFailed) }
    guard case .detached = session.phase else { return transport.close() }
    attach(transport)
    step(.transportReopened)
  }

  /// Lets go of a reopened transport that did not bring the board back; the next try waits until the port is
  /// released, so that it does not find the port held by this one.
  private func abandon() {
    generation += 1
    guard let line else { return }
    self.line = nil
    line.close()
    Task(executorPreference: DescriptorEventLoop.shared) { [weak self] in
      await line.transport.waitUntilReleased()
      await self?.step(.reopenFailed)
    }
  }

  private func finish() {
    deadlineLoop?.cancel()
    deadlines.schedule(atMs: nil)
    generation += 1
    line?.close()
    line = nil
    unread?.close()
    unread = nil
    for continuation in waiters.failAll(with: .failure(.closed)) { continuation.resume(returning: .failure(.closed)) }
    eventSink.finish()
  }
}

/// The link's output epoch, read by the writer task without a hop to the actor.
final class OutputEpoch: Sendable {
  private let value = Atomic<Int>(0)

  var current: Int { value.load(ordering: .acquiring) }

  func advance() { value.add(1, ordering: .releasing) }
}
