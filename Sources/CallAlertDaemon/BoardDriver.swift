import CallAlertClient
import CallAlertEngine
import CallAlertProtocol
import CallAlertSerial
import Logging

/// One board of the daemon: keeps it connected (reconnecting as it comes and goes), carries out the
/// engine's commands for it in order, and turns what the board reports into engine inputs.
actor BoardDriver<C: Clock> where C.Duration == Duration {
  /// Opens a transport to the board.
  typealias Connector = @Sendable () async throws -> any ByteTransport

  /// The board's name in the configuration.
  nonisolated let name: String
  private let connect: Connector
  private let linkTiming: LinkTiming
  private let clock: C
  private let logger: Logger
  private let submit: @Sendable (EngineInput) async -> Void
  private var client: BoardClient<C>?
  private var resolver = PatternResolver()
  private let commands: AsyncStream<EngineEffect>.Continuation
  private let commandStream: AsyncStream<EngineEffect>
  private var tasks: [Task<Void, Never>] = []
  /// Played-token bookkeeping: the engine's token, and the fallback used when the board refused a slot.
  private var lastInfo: BoardInfo?

  init(
    name: String, clock: C, logger: Logger, linkTiming: LinkTiming = .standard, connect: @escaping Connector,
    submit: @escaping @Sendable (EngineInput) async -> Void
  ) {
    self.name = name
    self.linkTiming = linkTiming
    self.clock = clock
    self.logger = logger
    self.connect = connect
    self.submit = submit
    (commandStream, commands) = AsyncStream.makeStream(of: EngineEffect.self)
  }

  /// The board's INFO while connected.
  var info: BoardInfo? { lastInfo }

  /// Queues an engine effect for this board; effects run in order, one at a time.
  nonisolated func enqueue(_ effect: EngineEffect) {
    commands.yield(effect)
  }

  /// Connects (retrying with backoff until it works), then serves commands and board events until
  /// cancelled; on the way out, stops whatever plays.
  func run() async {
    let stream = commandStream
    let worker = Task { [weak self] in
      for await effect in stream {
        await self?.perform(effect)
      }
    }
    tasks.append(worker)
    await connectWithBackoff()
    await withTaskCancellationHandler {
      while !Task.isCancelled {
        do { try await clock.sleep(for: .seconds(3_600), tolerance: .seconds(60)) } catch { break }
      }
    } onCancel: {
      worker.cancel()
    }
    if let client {
      _ = try? await client.stop()
      await client.close()
    }
    commands.finish()
  }

  private func connectWithBackoff() async {
    var delay = Duration.milliseconds(200)
    var unavailable = RepeatedMessageFilter()
    while !Task.isCancelled {
      do {
        let transport = try await connect()
        let options = BoardClientOptions(
          timing: linkTiming,
          reconnect: BoardClientOptions.Reconnect(
            initialDelay: .milliseconds(200), maxDelay: .seconds(5), open: connect))
        let client = BoardClient(transport: transport, clock: clock, options: options)
        let info = try await client.connect()
        // A board left ringing by a daemon that died keeps ringing until its lease lapses: report it.
        let playing = try? await client.status().token
        self.client = client
        connected(info)
        let events = client.events
        tasks.append(
          Task { [weak self] in
            for await event in events { await self?.handle(event) }
          })
        await submit(.boardBack(board: name, playing: playing))
        return
      } catch {
        // Once, and again when the reason changes; every retry only at debug level.
        logger.log(
          level: unavailable.isNew("\(error)") ? .notice : .debug,
          "board \(name) not available: \(error); retrying in \(delay)")
        do { try await clock.sleep(for: delay, tolerance: nil) } catch { return }
        delay = min(delay * 2, .seconds(5))
      }
    }
  }

  private func connected(_ info: BoardInfo) {
    lastInfo = info
    logger.info(
      "board \(name) connected: serial \(String(decoding: info.serial, as: UTF8.self)), table v\(info.table.version)")
  }

  private func handle(_ event: BoardClientEvent) async {
    switch event {
    case .event(.button(let press)) where press.button == 0:
      await submit(.acknowledge(board: name))
    case .event(.playEnded(let ended)):
      await submit(.playEnded(board: name, token: ended.token, reason: ended.reason))
    case .event(.fault(let fault)):
      logger.warning(
        "board \(name) fault \(fault.code.map { "\($0)" } ?? "code \(fault.rawCode)"), detail \(fault.detail)")
    case .event: break
    case .actuators: break
    case .restarted(let info):
      connected(info)
      logger.warning("board \(name) restarted")
      await submit(.boardBack(board: name))
    case .disconnected(let reason):
      lastInfo = nil
      logger.warning("board \(name) lost: \(reason)")
      await submit(.boardLost(board: name))
    case .reconnected(let info, let status):
      connected(info)
      await submit(.boardBack(board: name, playing: status.token))
    case .closed:
      lastInfo = nil
    }
  }

  private func perform(_ effect: EngineEffect) async {
    guard let client else { return }  // not connected: the engine already knows, through boardLost
    do {
      switch effect {
      case .play(_, let token, let pattern, let capMs, let options):
        let request = PlayRequest(token: token, capMs: capMs, options: options, source: resolver.source(for: pattern))
        do {
          try await client.play(request)
        } catch .nak(_, let nak) where nak.code == .badSlot || nak.code == .badPattern {
          // No such slot on this board (no table flashed yet): ring with the built-in ring rather than not at all.
          logger.notice(
            "board \(name): \(pattern) not playable (\(nak.code.map { "\($0)" } ?? "")); using the built-in ring")
          try await client.play(
            PlayRequest(token: token, capMs: capMs, options: options, source: .inline(PatternResolver.fallback)))
        }
      case .stop(_, let token):
        try await client.stop(token: token)
      case .indicator(_, let setting):
        _ = try await client.send(.setIndicator(setting))
      case .event:
        break
      }
    } catch {
      logger.warning("board \(name): \(effect) failed: \(error)")
    }
  }
}
