import CallAlertClient
import CallAlertEngine
import CallAlertPatterns
import CallAlertProtocol
import CallAlertRuntime
import CallAlertSerial
import CallAlertTransport
import Logging
import Synchronization

/// One board of the daemon: keeps it connected (reconnecting as it comes and goes), carries out the
/// engine's commands for it in order, and turns what the board reports into engine inputs.
actor BoardDriver<C: Clock> where C.Duration == Duration {
  /// Runs on the process's event loop, beside the descriptors it reads and writes, so that bytes and
  /// requests reach it without a hand-off between threads (see ``DescriptorEventLoop``).
  nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }

  /// Opens a transport to the board.
  typealias Connector = @Sendable () async throws -> any ByteTransport

  /// The board's name in the configuration.
  nonisolated let name: String
  private let connect: Connector
  private let linkTiming: LinkTiming
  private let clock: C
  private let logger: Logger
  private let submit: @Sendable (EngineInput) async -> Void
  /// Told each press of the button and its kind, before the press is submitted as an acknowledgement.
  private let pressed: @Sendable (PressKind) async -> Void
  private var client: BoardClient<C>?
  private var resolver = PatternResolver()
  /// The effects waiting for the command worker (see ``BoardCommandQueue``), and its wake-up call.
  private let waiting = Mutex(BoardCommandQueue<C.Instant>())
  private let commands: AsyncStream<Void>.Continuation
  private let commandStream: AsyncStream<Void>
  /// Told each call's time from its arrival to this board's acknowledged PLAY.
  private let callToPlay: CallToPlayListeners?
  /// Played-token bookkeeping: the engine's token, and the fallback used when the board refused a slot.
  private var lastInfo: BoardInfo?
  /// How the link stands, for `status`.
  private(set) var link = BoardLinkState.connecting
  /// Why the board is not connected: the last failure to connect it, with what to do; nil once connected.
  /// Logged once, it was only in the log, while `status` said `connecting` for ever.
  private(set) var problem: String?
  /// The link's counters on the current connection (BoardLinkStatistics.swift); nil while not connected.
  var linkStatistics: BoardLinkStatistics? {
    get async {
      guard let client else { return nil }
      return BoardLinkStatistics(await client.linkStatistics)
    }
  }
  /// Repeated FAULTs and line noise: the first logged, then a summary per interval.
  private var throttle = LogThrottle(intervalMs: BoardDriver.logSummaryIntervalMs)
  /// The last pattern fallback logged: a board without a table falls back on every call, logged once.
  private var repeatedFallback = RepeatedMessageFilter()
  private var summaryTimer: Task<Void, Never>?
  private let start: C.Instant

  /// How long one summary of repeated log lines covers.
  static var logSummaryIntervalMs: UInt64 { 10_000 }
  /// The table the config's pattern file compiles to, installed when the board's differs; nil: none.
  private let wantedTable: PatternBuild?
  /// The token the board plays, as far as the driver knows (a flash waits until nothing plays).
  private var playingToken: UInt32?
  private var tableSync: Task<Void, Never>?
  private var tableSyncDeferred = false
  /// PLAYs queued and not yet carried out: a board about to ring is not flashed either.
  private let queuedPlays = Mutex(0)

  init(
    name: String, clock: C, logger: Logger, linkTiming: LinkTiming = .standard, wantedTable: PatternBuild? = nil,
    connect: @escaping Connector, pressed: @escaping @Sendable (PressKind) async -> Void = { _ in },
    submit: @escaping @Sendable (EngineInput) async -> Void, callToPlay: CallToPlayListeners? = nil
  ) {
    self.callToPlay = callToPlay
    self.name = name
    self.wantedTable = wantedTable
    self.linkTiming = linkTiming
    self.clock = clock
    self.logger = logger
    self.connect = connect
    self.submit = submit
    self.pressed = pressed
    start = clock.now
    (commandStream, commands) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  /// The board's INFO while connected.
  var info: BoardInfo? { lastInfo }

  /// Queues an engine effect for this board; effects run in order, one at a time, but a PLAY whose STOP comes
  /// before its turn is not carried out (see ``BoardCommandQueue``). A PLAY with a `callArrival` reports the
  /// time from it to the board's acknowledgement.
  nonisolated func enqueue(_ effect: EngineEffect, callArrival: C.Instant? = nil) {
    if case .play = effect { queuedPlays.withLock { $0 += 1 } }
    if waiting.withLock({ $0.append(effect, callArrival: callArrival) }) {
      queuedPlays.withLock { $0 -= 1 }  // the PLAY left the queue with its STOP
    }
    commands.yield()
  }

  /// The one reconnect policy for this board: the first connection and every reopening after an unplug
  /// (which the client does itself) take their pauses from it.
  private var reconnect: BoardClientOptions.Reconnect {
    BoardClientOptions.Reconnect(initialDelay: .milliseconds(200), maxDelay: .seconds(5), open: connect)
  }

  /// Connects (retrying with backoff until it works), then serves commands and board events until
  /// cancelled; on the way out, stops whatever plays. The command worker and the event reader are child
  /// tasks: both end when this task is cancelled (their streams end with it), and so does this call.
  func run() async {
    let stream = commandStream
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for await _ in stream {
          while !Task.isCancelled, let queued = self.waiting.withLock({ $0.next() }) {
            await self.perform(queued.effect, callArrival: queued.callArrival)
          }
        }
      }
      if let events = await connectWithBackoff() {
        group.addTask {
          for await event in events { await self.handle(event) }
        }
      }
      await group.waitForAll()
    }
    summaryTimer?.cancel()
    tableSync?.cancel()
    if let client {
      do { try await client.stop() } catch { logger.notice("board \(name): STOP at shutdown failed: \(error)") }
      await client.close()
    }
    commands.finish()
  }

  /// Connects the board, with the reconnect policy's pauses between tries; returns the client's events, or
  /// nil when cancelled first.
  private func connectWithBackoff() async -> AsyncStream<BoardClientEvent>? {
    var backoff = reconnect.backoff
    var unavailable = RepeatedMessageFilter()
    while !Task.isCancelled {
      var transport: (any ByteTransport)?
      var attempt: BoardClient<C>?
      do {
        let opened = try await connect()
        transport = opened
        let options = BoardClientOptions(
          timing: linkTiming, reconnect: reconnect, liveness: BoardClientOptions.Liveness())
        let client = BoardClient(transport: opened, clock: clock, options: options)
        attempt = client
        let info = try await client.connect()
        // A board left ringing by a daemon that died keeps ringing until its lease lapses: report it.
        let playing: UInt32?
        do { playing = try await client.status().token } catch {
          logger.notice("board \(name): status after connecting failed, taking it for idle: \(error)")
          playing = nil
        }
        self.client = client
        connected(info)
        await submit(.boardBack(board: name, playing: playing))
        return client.events
      } catch {
        let noise = await attempt?.unreadableBytes ?? 0
        // Let go of the port before the next try, or that try would find it held by this very daemon.
        if let attempt { await attempt.close() } else { transport?.close() }
        await transport?.waitUntilReleased()
        let hint =
          noise > 0
          ? " (the line carried \(noise) bytes that decoded to no frame: a wrong baud rate, or not a CallAlert board?)"
          : ""
        let delay = backoff.next()
        let reason = "\(error)\(hint)"
        problem = reason
        // Once, and again when the reason changes; every retry only at debug level.
        logger.log(
          level: unavailable.isNew(reason) ? .notice : .debug,
          "board \(name) not available: \(reason); retrying in \(delay)")
        do { try await clock.sleep(for: delay, tolerance: nil) } catch { return nil }
      }
    }
    return nil
  }

  private func connected(_ info: BoardInfo) {
    lastInfo = info
    link = .connected
    problem = nil
    repeatedFallback.reset()  // its table may have changed
    logger.info(
      "board \(name) connected: serial \(String(decoding: info.serial, as: UTF8.self)), table v\(info.table.version)")
    startTableSync()
  }

  private func handle(_ event: BoardClientEvent) async {
    switch event {
    case .event(.button(let press)) where press.button == 0:
      await pressed(press.kind)
      await submit(.acknowledge(board: name))
    case .event(.playEnded(let ended)):
      if ended.token == playingToken { played(nil) }
      await submit(.playEnded(board: name, token: ended.token, reason: ended.reason))
    case .event(.fault(let fault)):
      let kind = "fault \(fault.code.map { "\($0)" } ?? "code \(fault.rawCode)")"
      if throttle.admit(kind, at: nowMs) {
        logger.warning("board \(name) \(kind), detail \(fault.detail)")
      }
      scheduleSummaries()
    case .unreadableLine(let bytes):
      if throttle.admit("line noise", amount: bytes, at: nowMs) {
        logger.warning(
          "board \(name): \(bytes) bytes on the line decoded to no frame (a wrong baud rate, or not a CallAlert board on this port?)"
        )
      }
      scheduleSummaries()
    case .unresponsive(let reason):
      logger.warning("board \(name) not answering (\(reason)); marked unresponsive, calling it until it answers")
      await submit(.boardLost(board: name))
      // After the engine knows: `status` never shows the link unresponsive and the board still playing.
      link = .unresponsive
    case .responsive(let info, let status):
      connected(info)
      logger.notice("board \(name) answers again; session reopened")
      await submit(.boardBack(board: name, playing: status.token))
    case .event: break
    case .actuators: break
    case .restarted(let info):
      playingToken = nil
      connected(info)
      logger.warning("board \(name) restarted")
      await submit(.boardBack(board: name))
    case .disconnected(let reason):
      lastInfo = nil
      link = .disconnected
      playingToken = nil
      logger.warning("board \(name) lost: \(reason)")
      await submit(.boardLost(board: name))
    case .reconnected(let info, let status):
      connected(info)
      await submit(.boardBack(board: name, playing: status.token))
    case .closed:
      lastInfo = nil
      link = .disconnected
    }
  }

  /// The driver's clock in milliseconds since it was made.
  private var nowMs: UInt64 {
    let (seconds, attoseconds) = start.duration(to: clock.now).components
    return UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
  }

  /// Wakes at the end of the throttle's interval to log what it held back.
  private func scheduleSummaries() {
    guard summaryTimer == nil, let deadline = throttle.nextDeadlineMs else { return }
    let at = start.advanced(by: .milliseconds(Int64(clamping: deadline)))
    let clock = self.clock
    summaryTimer = Task { [weak self] in
      do { try await clock.sleep(until: at, tolerance: nil) } catch { return }
      await self?.logSummaries()
    }
  }

  private func logSummaries() {
    summaryTimer = nil
    let seconds = Self.logSummaryIntervalMs / 1_000
    for summary in throttle.due(at: nowMs) {
      if summary.key == "line noise" {
        logger.warning("board \(name): \(summary.amount) more bytes of line noise in the last \(seconds) s")
      } else {
        logger.warning("board \(name) \(summary.key) repeated \(summary.count) more times in the last \(seconds) s")
      }
    }
    scheduleSummaries()
  }

  private func perform(_ effect: EngineEffect, callArrival: C.Instant? = nil) async {
    let isPlay = if case .play = effect { true } else { false }
    defer { if isPlay { playDone() } }
    guard let client else { return }  // not connected: the engine already knows, through boardLost
    do {
      switch effect {
      case .play(_, let token, let pattern, let capMs, let options):
        var resolution = resolver.resolve(pattern, options: options)
        do {
          try await client.play(PlayRequest(token: token, capMs: capMs, options: options, source: resolution.source))
        } catch .nak(_, let nak) where nak.code == .badSlot || nak.code == .badPattern {
          // No such slot on this board (no table flashed yet): ring with the default ring rather than not at all.
          resolution = PatternResolver.afterRefusal(
            options: options, because: "the board refused it (\(nak.code.map { "\($0)" } ?? "code \(nak.rawCode)"))")
          try await client.play(PlayRequest(token: token, capMs: capMs, options: options, source: resolution.source))
        }
        played(token)
        if let callArrival { callToPlay?.report(board: name, latency: callArrival.duration(to: clock.now)) }
        if let fallback = resolution.fallback {
          // Events and the history name what really plays.
          // Logged once, and again when it changes: every call on a board without a table would repeat it.
          let line = "board \(name): \(Self.describe(pattern)) plays \(fallback.played) instead: \(fallback.reason)"
          logger.log(level: repeatedFallback.isNew(line) ? .notice : .debug, "\(line)")
          await submit(.patternFallback(board: name, token: token, played: fallback.played, reason: fallback.reason))
        }
      case .stop(_, let token):
        try await client.stop(token: token)
        if token == playingToken || token == Command.stopAll { played(nil) }
      case .indicator(_, let setting):
        _ = try await client.send(.setIndicator(setting))
      case .event:
        break
      }
    } catch {
      logger.warning("board \(name): \(effect) failed: \(error)")
      // Nothing plays there: the engine must not report the call as playing on this board.
      if case .play(_, let token, _, _, _) = effect { await submit(.playFailed(board: name, token: token)) }
    }
  }

  // MARK: - The board's pattern table (see BoardTableSync)

  /// Notes what the board plays; when it falls idle, a table flash that waited for it starts.
  private func played(_ token: UInt32?) {
    playingToken = token
    if tableSyncDeferred && isIdle { startTableSync(afterConnect: false) }
  }

  /// Reads the board's table (slot names and steps for the resolver) and, with a pattern file, installs it
  /// when the board's differs, once nothing plays. After a (re)connect the board may hold another table, so
  /// the old one is forgotten; a flash that waited for the ring to end keeps it until the new one is in.
  private func startTableSync(afterConnect: Bool = true) {
    guard let client else { return }
    tableSync?.cancel()
    tableSyncDeferred = false
    if afterConnect { resolver.forgetTable() }
    let sync = BoardTableSync(board: name, wanted: wantedTable, clock: clock, logger: logger)
    tableSync = Task { [weak self] in
      guard let self else { return }
      let outcome = await sync.run(client: client, mayFlash: { await self.isIdle })
      await tableSynced(outcome)
    }
  }

  /// Nothing plays and no PLAY waits.
  private var isIdle: Bool { playingToken == nil && queuedPlays.withLock { $0 } == 0 }

  /// A queued PLAY was carried out (or failed): a flash that waited may start when nothing plays.
  private func playDone() {
    queuedPlays.withLock { $0 -= 1 }
    if tableSyncDeferred && isIdle { startTableSync(afterConnect: false) }
  }

  /// `pattern office`, `slot 3`, `an inline pattern`, for the log.
  private static func describe(_ pattern: PatternReference) -> String {
    switch pattern {
    case .slot(let slot): "slot \(slot)"
    case .named(let name): "pattern \(name)"
    case .inline: "an inline pattern"
    }
  }

  private func tableSynced(_ outcome: BoardTableSync<C>.Outcome) {
    guard !Task.isCancelled else { return }
    tableSyncDeferred = outcome.flashDeferred
    defer {
      // The ring may have ended while the sync read the table: flash now rather than after the next call.
      if tableSyncDeferred && isIdle { startTableSync(afterConnect: false) }
    }
    guard outcome.known else { return }
    resolver.learn(outcome.table)
    // Logged once the names are in use, so that what the log says holds for the next call.
    guard let table = outcome.table else {
      logger.info("board \(name): no pattern table installed; names resolve to the built-in patterns")
      return
    }
    let names = table.slots.enumerated().compactMap { slot, entry in
      entry.map { "\(String(decoding: $0.name.prefix { $0 != 0 }, as: UTF8.self)) (slot \(slot))" }
    }
    logger.info("board \(name): pattern table v\(table.version): \(names.joined(separator: ", "))")
  }
}

/// How a board's link stands, as `status` reports it.
enum BoardLinkState: String, Sendable {
  /// Not connected yet (the first handshake has not succeeded).
  case connecting
  /// A session is open and the board answers.
  case connected
  /// The port is open but the board stopped answering; the daemon calls it until it answers.
  case unresponsive
  /// The port went away (unplugged); the daemon reopens it when the board comes back.
  case disconnected
}
