import CallAlertEngine
import CallAlertLights
import CallAlertPatterns
import CallAlertProtocol
import CallAlertRuntime
import CallAlertTransport
import Logging

/// A USB presence light as a ``BoardDevice``: ``LightPlayer`` decides, on the daemon's clock, which reports
/// go out; this actor writes them, wakes the player at its deadlines, reports the rings' ends as a board's
/// PLAY_ENDED, and reopens a light that was unplugged. A light has no button: acknowledgement stays with the
/// control socket, HTTP or another board.
actor LightBoard<C: Clock>: BoardDevice where C.Duration == Duration {
  /// Runs on the process's event loop with its driver, so that a PLAY reaches the light's write without a
  /// hand-off between threads, and a test clock's steps reach it through the loop.
  nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }

  /// Opens the light.
  typealias Connector = @Sendable () async throws -> any LightDevice

  private let name: String
  private let appearance: LightAppearance
  private var patterns: LightPatterns
  private let clock: C
  private let logger: Logger
  private let connect: Connector
  private var player: LightPlayer
  private var device: (any LightDevice)?
  private let origin: C.Instant
  private var timer: Task<Void, Never>?
  private var reopening: Task<Void, Never>?
  private var continuation: AsyncStream<BoardDeviceEvent>.Continuation?

  /// A light of `kind` that shows calls as `appearance` says. Its device timer (a Kuando's keepalive, a
  /// blink(1)'s tickle) lapses after `leaseMs`, the serial boards' lease, so that a host that dies leaves it
  /// dark as soon as it would leave a board silent.
  init(
    name: String, kind: LightKind, appearance: LightAppearance, patternTable: PatternTable?, leaseMs: UInt32 = 3_000,
    clock: C, logger: Logger, connect: @escaping Connector
  ) {
    self.name = name
    self.appearance = appearance
    patterns = LightPatterns(table: patternTable)
    self.clock = clock
    self.logger = logger
    self.connect = connect
    player = LightPlayer(kind: kind, deviceTimeoutMs: leaseMs)
    origin = clock.now
  }

  func open() async throws(BoardDeviceError) -> BoardOpening {
    let opened: any LightDevice
    do { opened = try await connect() } catch { throw BoardDeviceError(description: "\(error)") }
    device = opened
    logger.info("board \(name) connected: \(opened.name)")
    // Whatever an earlier daemon left lit goes dark.
    write(player.shutDown().reports)
    let (events, continuation) = AsyncStream.makeStream(of: BoardDeviceEvent.self)
    self.continuation = continuation
    return BoardOpening(events: events, playing: nil)
  }

  func play(_ request: BoardPlay) async throws(BoardDeviceError) -> BoardPlayed {
    guard device != nil else { throw BoardDeviceError(description: "the light is not connected") }
    let found = patterns.find(request.pattern)
    let look = appearance.look(for: found.name)
    // A Kuando's ringtone stands for the pattern's buzzer steps: a pattern without any (a vibration) plays
    // none, and silent mode and vibrate-only boards, which mute the buzzer, show the rhythm without a sound.
    let sounds = found.pattern.steps.contains { $0.isAudible } && !request.options.contains(.muteBuzzer)
    let sound = sounds ? KuandoSound(ringtone: look.ringtone, volume: appearance.volume) : nil
    let ring = LightPlayer.Ring(
      token: request.token, rhythm: LightRhythm(found.pattern), color: look.color, sound: sound,
      capMs: UInt32(request.capMs))
    apply(player.play(ring, now: nowMs))
    return BoardPlayed(fallback: found.fallback)
  }

  func stop(token: UInt32) async throws(BoardDeviceError) {
    apply(player.stop(token: token, now: nowMs))
  }

  func setIndicator(_ setting: IndicatorSetting) async throws(BoardDeviceError) {
    let indicator: LightPlayer.Indicator? =
      switch setting.mode {
      case .off: nil
      case .on: LightPlayer.Indicator(color: appearance.indicatorColor)
      case .blink:
        LightPlayer.Indicator(
          color: appearance.indicatorColor, onMs: UInt32(setting.onMs), offMs: UInt32(setting.offMs))
      }
    apply(player.setIndicator(indicator, now: nowMs))
  }

  func becameIdle() {}

  func install(
    _ build: PatternBuild, progress: @escaping @Sendable (TableInstallProgress) -> Void
  ) async
    -> TableInstallOutcome
  {
    patterns = LightPatterns(table: build.table)
    return .inUse
  }

  var health: BoardHealth { BoardHealth(device: device?.name) }

  func close() async {
    timer?.cancel()
    reopening?.cancel()
    apply(player.shutDown())
    device?.close()
    device = nil
    continuation?.yield(.closed)
    continuation?.finish()
  }

  // MARK: - Time and writes

  /// The clock in milliseconds since this light was made: the player's time.
  private var nowMs: UInt64 {
    let (seconds, attoseconds) = origin.duration(to: clock.now).components
    return UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
  }

  private func apply(_ output: LightPlayer.Output) {
    write(output.reports)
    for ended in output.ended { continuation?.yield(.playEnded(token: ended.token, reason: ended.reason)) }
    reschedule()
  }

  private func write(_ reports: [LightReport]) {
    guard let device else { return }
    for report in reports {
      do throws(LightDeviceError) {
        try device.send(report)
      } catch {
        lost(error.description)
        return
      }
    }
  }

  /// One wake-up at the player's next deadline.
  private func reschedule() {
    timer?.cancel()
    guard let deadline = player.nextDeadlineMs else {
      timer = nil
      return
    }
    let at = origin.advanced(by: .milliseconds(Int64(clamping: deadline)))
    let clock = self.clock
    timer = Task { [weak self] in
      do { try await clock.sleep(until: at, tolerance: nil) } catch { return }
      await self?.deadlineReached()
    }
  }

  private func deadlineReached() {
    timer = nil
    apply(player.advance(to: nowMs))
  }

  /// The light went away: what played ended (it is dark, or will be when its timer lapses); it is reopened,
  /// with the pauses of the one ``BoardReconnectPolicy``, until it is back.
  private func lost(_ reason: String) {
    device?.close()
    device = nil
    let ended = player.shutDown().ended
    timer?.cancel()
    timer = nil
    continuation?.yield(.lost(reason: reason))
    for ring in ended { continuation?.yield(.playEnded(token: ring.token, reason: .fault)) }
    let clock = self.clock
    let connect = self.connect
    reopening = Task { [weak self] in
      var backoff = BoardReconnectPolicy.backoff
      while !Task.isCancelled {
        do { try await clock.sleep(for: backoff.next(), tolerance: nil) } catch { return }
        if let device = try? await connect() {
          await self?.reopened(device)
          return
        }
      }
    }
  }

  private func reopened(_ device: any LightDevice) {
    self.device = device
    reopening = nil
    logger.info("board \(name) connected: \(device.name)")
    write(player.shutDown().reports)
    continuation?.yield(.reconnected(playing: nil))
  }
}
