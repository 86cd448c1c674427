import CallAlertClient
import CallAlertEngine
import CallAlertPatterns
import CallAlertProtocol
import CallAlertRuntime
import CallAlertSerial
import CallAlertTransport
import Logging

/// One board of the daemon: keeps it connected (reconnecting as it comes and goes), carries out the
/// engine's commands for it in order, and turns what the board reports into engine inputs. What the board
/// is (a CallAlert board on its serial link, a USB light) is its ``BoardDevice``'s business.
///
/// Its jobs around that are named types: effects arrive through a ``BoardCommandInbox``, the pauses between
/// tries to open the board are the ``BoardReconnectPolicy``, what an event means for the engine, the link
/// state and the log is a ``BoardEventRoute``, and what is logged how often is the ``BoardDriverLog``.
actor BoardDriver<C: Clock> where C.Duration == Duration {
  /// Runs on the process's event loop, beside the descriptors it reads and writes, so that bytes and
  /// requests reach it without a hand-off between threads (see ``DescriptorEventLoop``).
  nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }

  /// Opens a transport to a serial board.
  typealias Connector = @Sendable () async throws -> any ByteTransport

  /// The board's name in the configuration.
  nonisolated let name: String
  private let device: any BoardDevice
  private let clock: C
  private let logger: Logger
  private let submit: @Sendable (EngineInput) async -> Void
  /// Told each press of the button and its kind, before the press is submitted as an acknowledgement.
  private let pressed: @Sendable (PressKind) async -> Void
  /// The effects waiting for the command worker.
  private let inbox: BoardCommandInbox<C.Instant>
  /// Told each call's time from its arrival to this board's acknowledged PLAY.
  private let callToPlay: CallToPlayListeners?
  /// What the board is busy with: the token it plays and the PLAYs queued (shared with the device).
  private let activity: BoardActivity
  private var isOpen = false
  /// How the link stands, for `status`.
  private(set) var link = BoardLinkState.connecting
  /// Why the board is not connected: the last failure to connect it, with what to do; nil once connected.
  /// `status` shows it, since the log says it only once.
  private(set) var problem: String?
  /// What is logged, and how often.
  private var log: BoardDriverLog
  private var summaryTimer: Task<Void, Never>?
  private let start: C.Instant

  /// A driver for a CallAlert board on its serial link, opened by `connect`.
  init(
    name: String, clock: C, logger: Logger, linkTiming: LinkTiming = .standard, wantedTable: PatternBuild? = nil,
    connect: @escaping Connector, pressed: @escaping @Sendable (PressKind) async -> Void = { _ in },
    submit: @escaping @Sendable (EngineInput) async -> Void, callToPlay: CallToPlayListeners? = nil
  ) {
    let activity = BoardActivity()
    let device = SerialBoard(
      name: name, clock: clock, logger: logger, linkTiming: linkTiming, wantedTable: wantedTable, activity: activity,
      connect: connect)
    self.init(
      name: name, device: device, activity: activity, clock: clock, logger: logger, pressed: pressed, submit: submit,
      callToPlay: callToPlay)
  }

  /// A driver for any board; `activity` is the one `device` was given, if it was given one.
  init(
    name: String, device: any BoardDevice, activity: BoardActivity = BoardActivity(), clock: C, logger: Logger,
    pressed: @escaping @Sendable (PressKind) async -> Void = { _ in },
    submit: @escaping @Sendable (EngineInput) async -> Void, callToPlay: CallToPlayListeners? = nil
  ) {
    self.callToPlay = callToPlay
    self.name = name
    self.device = device
    self.activity = activity
    self.clock = clock
    self.logger = logger
    self.submit = submit
    self.pressed = pressed
    start = clock.now
    inbox = BoardCommandInbox(activity: activity)
    log = BoardDriverLog(board: name)
  }

  /// Hands the board a new pattern table (see ``BoardDevice/install(_:progress:)``).
  func install(
    _ build: PatternBuild, progress: @escaping @Sendable (TableInstallProgress) -> Void
  ) async
    -> TableInstallOutcome
  {
    await device.install(build, progress: progress)
  }

  /// The board's INFO while connected (a CallAlert board's; a light has none).
  var info: BoardInfo? {
    get async {
      guard link == .connected || link == .unresponsive else { return nil }
      return await device.health.info
    }
  }

  /// A light's device while it is open (a CallAlert board has its INFO instead).
  var deviceName: String? {
    get async { isOpen ? await device.health.device : nil }
  }

  /// The link's counters on the current connection (BoardLinkStatistics.swift); nil while not connected.
  var linkStatistics: BoardLinkStatistics? {
    get async { isOpen ? await device.health.linkStatistics : nil }
  }

  /// Queues an engine effect for this board; effects run in order, one at a time, but a PLAY whose STOP comes
  /// before its turn is not carried out (see ``BoardCommandQueue``). A PLAY with a `callArrival` reports the
  /// time from it to the board's acknowledgement.
  nonisolated func enqueue(_ effect: EngineEffect, callArrival: C.Instant? = nil) {
    inbox.enqueue(effect, callArrival: callArrival)
  }

  /// Connects (retrying with backoff until it works), then serves commands and board events until
  /// cancelled; on the way out, stops whatever plays. The command worker and the event reader are child
  /// tasks: both end when this task is cancelled (their streams end with it), and so does this call.
  func run() async {
    let inbox = self.inbox
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for await _ in inbox.wakeUps {
          while !Task.isCancelled, let queued = inbox.next() {
            await self.perform(queued.effect, callArrival: queued.callArrival)
          }
        }
      }
      if let events = await openWithBackoff() {
        group.addTask {
          for await event in events { await self.handle(event) }
        }
      }
      await group.waitForAll()
    }
    summaryTimer?.cancel()
    if isOpen { await device.close() }
    inbox.finish()
  }

  /// Opens the board, with the pauses of the one ``BoardReconnectPolicy`` between tries (the serial client
  /// reopens an unplugged port itself, with the same pauses); returns its events, or nil when cancelled first.
  private func openWithBackoff() async -> AsyncStream<BoardDeviceEvent>? {
    var backoff = BoardReconnectPolicy.backoff
    while !Task.isCancelled {
      do {
        let opening = try await device.open()
        isOpen = true
        connected()
        await submit(.boardBack(board: name, playing: opening.playing))
        return opening.events
      } catch {
        let delay = backoff.next()
        problem = error.description
        let (level, line) = log.unavailable(error.description, retryingIn: delay)
        logger.log(level: level, "\(line)")
        do { try await clock.sleep(for: delay, tolerance: nil) } catch { return nil }
      }
    }
    return nil
  }

  private func connected() {
    link = .connected
    problem = nil
    log.connected()
  }

  /// Carries out what the event means, in the order its ``BoardEventRoute`` says.
  private func handle(_ event: BoardDeviceEvent) async {
    for step in BoardEventRoute.steps(for: event, board: name) {
      switch step {
      case .pressed(let kind): await pressed(kind)
      case .submit(let input): await submit(input)
      case .link(let state):
        if state == .connected { connected() } else { link = state }
      case .forgetPlaying: activity.playingToken = nil
      case .ended(let token): if token == activity.playingToken { await played(nil) }
      case .log(let level, let line): logger.log(level: level, "\(line)")
      case .fault(let kind, let detail):
        if let line = log.fault(kind, detail: detail, at: nowMs) { logger.warning("\(line)") }
        scheduleSummaries()
      case .lineNoise(let bytes):
        if let line = log.lineNoise(bytes: bytes, at: nowMs) { logger.warning("\(line)") }
        scheduleSummaries()
      }
    }
  }

  /// The driver's clock in milliseconds since it was made.
  private var nowMs: UInt64 {
    let (seconds, attoseconds) = start.duration(to: clock.now).components
    return UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
  }

  /// Wakes at the end of the throttle's interval to log what it held back.
  private func scheduleSummaries() {
    guard summaryTimer == nil, let deadline = log.nextSummaryMs else { return }
    let at = start.advanced(by: .milliseconds(Int64(clamping: deadline)))
    let clock = self.clock
    summaryTimer = Task { [weak self] in
      do { try await clock.sleep(until: at, tolerance: nil) } catch { return }
      await self?.logSummaries()
    }
  }

  private func logSummaries() {
    summaryTimer = nil
    for line in log.summaries(at: nowMs) { logger.warning("\(line)") }
    scheduleSummaries()
  }

  private func perform(_ effect: EngineEffect, callArrival: C.Instant? = nil) async {
    let isPlay = if case .play = effect { true } else { false }
    guard isOpen else {
      // Never connected: the engine already knows, through boardLost.
      if isPlay { await playDone() }
      return
    }
    do {
      switch effect {
      case .play(_, let token, let pattern, let capMs, let options):
        defer { activity.queuedPlays(by: -1) }
        let outcome = try await device.play(BoardPlay(token: token, pattern: pattern, capMs: capMs, options: options))
        activity.playingToken = token
        if let callArrival { callToPlay?.report(board: name, latency: callArrival.duration(to: clock.now)) }
        if let fallback = outcome.fallback {
          // Events and the history name what really plays.
          let line = "board \(name): \(pattern.logDescription) plays \(fallback.played) instead: \(fallback.reason)"
          logger.log(level: log.fallback(line), "\(line)")
          await submit(.patternFallback(board: name, token: token, played: fallback.played, reason: fallback.reason))
        }
      case .stop(_, let token):
        try await device.stop(token: token)
        if token == activity.playingToken || token == Command.stopAll { activity.playingToken = nil }
      case .indicator(_, let setting):
        try await device.setIndicator(setting)
      case .event:
        break
      }
    } catch {
      logger.warning("board \(name): \(effect) failed: \(error)")
      // Nothing plays there: the engine must not report the call as playing on this board.
      if case .play(_, let token, _, _, _) = effect { await submit(.playFailed(board: name, token: token)) }
    }
    if activity.isIdle { await device.becameIdle() }
  }

  /// Notes what the board plays; when it falls idle, work that waited for it may start.
  private func played(_ token: UInt32?) async {
    activity.playingToken = token
    if activity.isIdle { await device.becameIdle() }
  }

  /// A queued PLAY that was not carried out.
  private func playDone() async {
    activity.queuedPlays(by: -1)
    if activity.isIdle { await device.becameIdle() }
  }
}
