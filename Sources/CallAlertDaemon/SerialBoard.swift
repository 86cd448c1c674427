import CallAlertClient
import CallAlertEngine
import CallAlertPatterns
import CallAlertProtocol
import CallAlertRuntime
import CallAlertTransport
import Logging

/// A CallAlert board on its serial link as a ``BoardDevice``: the board client's session (handshake, lease,
/// reconnects after an unplug), the pattern names resolved against the board's table, and that table kept as
/// the config's pattern file wants it (flashed once nothing plays).
actor SerialBoard<C: Clock>: BoardDevice where C.Duration == Duration {
  /// Runs on the process's event loop, beside the descriptors it reads and writes, so that bytes and
  /// requests reach it without a hand-off between threads (see ``DescriptorEventLoop``).
  nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }

  /// Opens a transport to the board.
  typealias Connector = @Sendable () async throws -> any ByteTransport

  private let name: String
  private let connect: Connector
  private let linkTiming: LinkTiming
  private let clock: C
  private let logger: Logger
  private let activity: BoardActivity
  /// The table the config's pattern file compiles to (or the page's *Save and flash* gave), installed when the
  /// board's differs; nil: none.
  private var wantedTable: PatternBuild?
  /// Told how a flash asked for by ``install(_:progress:)`` goes, until it ends.
  private var installProgress: (@Sendable (TableInstallProgress) -> Void)?
  private var client: BoardClient<C>?
  private var resolver = PatternResolver()
  private var tableSync: Task<Void, Never>?
  private var tableSyncDeferred = false
  private var forwarding: Task<Void, Never>?

  init(
    name: String, clock: C, logger: Logger, linkTiming: LinkTiming, wantedTable: PatternBuild?,
    activity: BoardActivity, connect: @escaping Connector
  ) {
    self.name = name
    self.clock = clock
    self.logger = logger
    self.linkTiming = linkTiming
    self.wantedTable = wantedTable
    self.activity = activity
    self.connect = connect
  }

  /// The client reopens the port after an unplug with the pauses of the one ``BoardReconnectPolicy``.
  private var reconnect: BoardClientOptions.Reconnect {
    BoardClientOptions.Reconnect(
      initialDelay: BoardReconnectPolicy.initialDelay, maxDelay: BoardReconnectPolicy.maxDelay, open: connect)
  }

  func open() async throws(BoardDeviceError) -> BoardOpening {
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
      return BoardOpening(events: forward(client.events), playing: playing)
    } catch {
      let noise = await attempt?.unreadableBytes ?? 0
      // Let go of the port before the next try, or that try would find it held by this very daemon.
      if let attempt { await attempt.close() } else { transport?.close() }
      await transport?.waitUntilReleased()
      let hint =
        noise > 0
        ? " (the line carried \(noise) bytes that decoded to no frame: a wrong baud rate, or not a CallAlert board?)"
        : ""
      throw BoardDeviceError(description: "\(error)\(hint)")
    }
  }

  func play(_ request: BoardPlay) async throws(BoardDeviceError) -> BoardPlayed {
    guard let client else { throw BoardDeviceError(description: "not connected") }
    var resolution = resolver.resolve(request.pattern, options: request.options)
    do {
      do {
        _ = try await client.play(
          PlayRequest(token: request.token, capMs: request.capMs, options: request.options, source: resolution.source))
      } catch .nak(_, let nak) where nak.code == .badSlot || nak.code == .badPattern {
        // No such slot on this board (no table flashed yet): ring with the default ring rather than not at all.
        resolution = PatternResolver.afterRefusal(
          options: request.options,
          because: "the board refused it (\(nak.code.map { "\($0)" } ?? "code \(nak.rawCode)"))")
        _ = try await client.play(
          PlayRequest(token: request.token, capMs: request.capMs, options: request.options, source: resolution.source))
      }
    } catch {
      throw BoardDeviceError(description: "\(error)")
    }
    return BoardPlayed(fallback: resolution.fallback)
  }

  func stop(token: UInt32) async throws(BoardDeviceError) {
    guard let client else { throw BoardDeviceError(description: "not connected") }
    do { _ = try await client.stop(token: token) } catch { throw BoardDeviceError(description: "\(error)") }
  }

  func setIndicator(_ setting: IndicatorSetting) async throws(BoardDeviceError) {
    guard let client else { throw BoardDeviceError(description: "not connected") }
    do { _ = try await client.send(.setIndicator(setting)) } catch { throw BoardDeviceError(description: "\(error)") }
  }

  /// How the last install of the wanted table went (nil before any).
  private var lastInstall: TableInstallOutcome?

  func install(
    _ build: PatternBuild, progress: @escaping @Sendable (TableInstallProgress) -> Void
  ) async
    -> TableInstallOutcome
  {
    wantedTable = build
    installProgress = progress
    lastInstall = nil
    guard client != nil else { return .waitsForTheBoard }
    startTableSync(afterConnect: false)
    // A board that stops answering and comes back (or restarts) during the flash starts a new sync with the
    // same wanted table, cancelling this one: the install's outcome is the new one's.
    var waited: Task<Void, Never>?
    while lastInstall == nil, let running = tableSync, running != waited {
      waited = running
      await running.value
    }
    return lastInstall ?? .failed("the link went away during the flash; it is flashed when the board is back")
  }

  func becameIdle() {
    if tableSyncDeferred && activity.isIdle { startTableSync(afterConnect: false) }
  }

  var health: BoardHealth {
    get async {
      guard let client else { return BoardHealth() }
      return BoardHealth(info: await client.info, linkStatistics: BoardLinkStatistics(await client.linkStatistics))
    }
  }

  func close() async {
    tableSync?.cancel()
    guard let client else { return }
    do { try await client.stop() } catch { logger.notice("board \(name): STOP at shutdown failed: \(error)") }
    await client.close()
    forwarding?.cancel()
  }

  // MARK: - Events

  /// The client's events as the driver's; a (re)connect reads the board's table again first.
  private func forward(_ events: AsyncStream<BoardClientEvent>) -> AsyncStream<BoardDeviceEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: BoardDeviceEvent.self)
    forwarding = Task { [weak self] in
      for await event in events {
        guard let self, let mapped = await self.translate(event) else { continue }
        continuation.yield(mapped)
      }
      continuation.finish()
    }
    return stream
  }

  private func translate(_ event: BoardClientEvent) -> BoardDeviceEvent? {
    switch event {
    case .event(.button(let press)) where press.button == 0: return .pressed(press.kind)
    case .event(.playEnded(let ended)): return .playEnded(token: ended.token, reason: ended.reason)
    case .event(.fault(let fault)):
      return .fault(kind: "fault \(fault.code.map { "\($0)" } ?? "code \(fault.rawCode)")", detail: "\(fault.detail)")
    case .event, .actuators: return nil
    case .unreadableLine(let bytes): return .lineNoise(bytes: bytes)
    case .unresponsive(let reason): return .unresponsive(reason: reason)
    case .responsive(let info, let status):
      connected(info)
      return .responsive(playing: status.token)
    case .restarted(let info):
      connected(info)
      return .restarted
    case .disconnected(let reason): return .lost(reason: reason)
    case .reconnected(let info, let status):
      connected(info)
      return .reconnected(playing: status.token)
    case .closed: return .closed
    }
  }

  private func connected(_ info: BoardInfo) {
    logger.info(
      "board \(name) connected: serial \(String(decoding: info.serial, as: UTF8.self)), table v\(info.table.version)")
    startTableSync()
  }

  // MARK: - The board's pattern table (see BoardTableSync)

  /// Reads the board's table (slot names and steps for the resolver) and, with a pattern file, installs it
  /// when the board's differs, once nothing plays. After a (re)connect the board may hold another table, so
  /// the old one is forgotten; a flash that waited for the ring to end keeps it until the new one is in.
  private func startTableSync(afterConnect: Bool = true) {
    guard let client else { return }
    // One sync at a time: the one taken over is cancelled (it flashes nothing more) and finishes its
    // exchange before this one talks to the board.
    let previous = tableSync
    previous?.cancel()
    tableSyncDeferred = false
    if afterConnect { resolver.forgetTable() }
    var sync = BoardTableSync(board: name, wanted: wantedTable, clock: clock, logger: logger)
    if let installProgress { sync.progress = installProgress }
    let activity = self.activity
    tableSync = Task { [weak self] in
      await previous?.value
      let outcome = await sync.run(client: client, mayFlash: { activity.isIdle })
      await self?.tableSynced(outcome)
    }
  }

  private func tableSynced(_ outcome: BoardTableSync<C>.Outcome) {
    guard !Task.isCancelled else { return }
    tableSyncDeferred = outcome.flashDeferred
    if let install = outcome.install {
      lastInstall = install
      let size = wantedTable?.bytes.count ?? 0
      let done = if case .installed = install { size } else { 0 }
      installProgress?(TableInstallProgress(bytes: done, of: size, ended: install))
    }
    if !outcome.flashDeferred { installProgress = nil }
    defer {
      // The ring may have ended while the sync read the table: flash now rather than after the next call.
      if tableSyncDeferred && activity.isIdle { startTableSync(afterConnect: false) }
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
