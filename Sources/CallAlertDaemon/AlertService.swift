import CallAlertControl
import CallAlertEngine
import CallAlertInputs
import CallAlertLights
import CallAlertPatterns
import CallAlertProtocol
import CallAlertRuntime
import CallAlertSerial
import CallAlertText
import CallAlertTransport
import CallAlertValues
import Logging

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The daemon's heart: the alert engine, fed by every input, woken exactly at its deadlines, with its
/// effects carried out by the board drivers and its events recorded and published.
public actor AlertService<C: Clock> where C.Duration == Duration {
  /// Runs on the process's event loop, beside the descriptors it reads and writes, so that bytes and
  /// requests reach it without a hand-off between threads (see ``DescriptorEventLoop``).
  public nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }

  /// Opens a transport to a board, by the board's name.
  public typealias Connector = BoardConnector

  /// An event as published: what happened and when (wall clock).
  public struct Published: Sendable {
    /// The event.
    public var event: EngineEvent
    /// When it happened.
    public var at: Date
  }

  private var engine: AlertEngine
  private let clock: C
  /// The engine's deadlines: one long-lived wake-up, run by ``run()``.
  private let deadlines: DeadlineTimer<C>
  private let wallClock: @Sendable () -> Date
  /// The wall clock's time now, as the engine gets it.
  nonisolated var wallNow: Date { wallClock() }
  private let logger: Logger
  private let recorder: (@Sendable (EngineEvent, Date) -> Void)?
  /// Waits while the recorder is behind: see ``roomForRecords()``.
  private let recorderRoom: (@Sendable () async -> Void)?
  private var drivers: [String: BoardDriver<C>] = [:]
  private var connectors: [String: Connector]
  private let lights: [String: LightConnection]
  private let linkTiming: LinkTiming
  private var patternTable: PatternBuild?
  private var subscribers: [UUID: EventSubscriber<Published>] = [:]
  private var anonymousCalls = AnonymousCallTracker()
  /// Told every input as it is handled (MQTT: a button press for Home Assistant, a switch to share at once).
  private var inputListeners: [@Sendable (EngineInput) -> Void] = []
  /// Told each call's time from its arrival here to a board's acknowledged PLAY (by the board drivers).
  private let callToPlay = CallToPlayListeners()
  /// Told every press of a board's button with its kind, which the engine's acknowledgement does not keep.
  private var buttonListeners: [@Sendable (_ board: String, _ kind: PressKind) -> Void] = []

  /// Creates the service.
  ///
  /// - Parameters:
  ///   - connectors: how to reach each configured board, by name.
  ///   - wallClock: the wall clock (quiet hours, sent-at lateness); injected for tests and the demo.
  ///   - recorder: called for every event (the history); errors are the recorder's to log.
  ///   - recorderRoom: returns once the recorder has room for more events (the history's back-pressure);
  ///     ``roomForRecords()`` calls it.
  ///   - linkTiming: the boards' retransmission rules (``LinkTiming/init(baudRate:baseTimeoutMs:maxTries:)``
  ///     for a UART slower than 115 200 baud).
  ///   - patternTable: the config's pattern file, compiled: installed on every board whose table differs.
  ///   - lights: the boards that are USB lights, by name (their patterns come from `patternTable` too).
  public init(
    configuration: EngineConfiguration, connectors: [String: Connector], lights: [String: LightConnection] = [:],
    clock: C,
    wallClock: @escaping @Sendable () -> Date = { Date() }, logger: Logger,
    recorder: (@Sendable (EngineEvent, Date) -> Void)? = nil, recorderRoom: (@Sendable () async -> Void)? = nil,
    linkTiming: LinkTiming = .standard, patternTable: PatternBuild? = nil
  ) {
    self.linkTiming = linkTiming
    self.patternTable = patternTable
    self.clock = clock
    deadlines = DeadlineTimer(clock: clock, alarm: LoopTimer.alarm(on: clock))
    self.wallClock = wallClock
    self.logger = logger
    self.recorder = recorder
    self.recorderRoom = recorderRoom
    self.connectors = connectors
    self.lights = lights
    engine = AlertEngine(configuration: configuration, now: EngineTime(monotonicMs: 0, wall: wallClock()))
  }

  /// The engine's time now.
  public var now: EngineTime {
    EngineTime(monotonicMs: deadlines.nowMs, wall: wallClock())
  }

  /// A stream of every event from now on.
  public func subscribe() -> AsyncStream<Published> {
    subscribe { $0 }
  }

  /// A stream of every event from now on, each as `transform` makes it: a subscriber that wants another shape
  /// gets it without a task of its own to convert each event, and the hop to that task.
  public func subscribe<Element: Sendable>(
    _ transform: @escaping @Sendable (Published) -> Element
  ) -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1_024))
    let id = UUID()
    subscribers[id] = EventSubscriber(continuation, transform)
    continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
    return stream
  }

  private func unsubscribe(_ id: UUID) { subscribers[id] = nil }

  /// Calls `listener` with every input the service acts on (from boards, sockets, sources, timers' news).
  public func onInput(_ listener: @escaping @Sendable (EngineInput) -> Void) { inputListeners.append(listener) }

  /// Calls `listener` each time a board acknowledged the PLAY of a call, with the board's name and the time
  /// since the call reached ``submit(_:)`` (from any source: socket, stdin, HTTP, SIP, MQTT). Only the PLAYs
  /// a call's own arrival caused count; a replay (a board back, a higher call ended) does not. Called from a
  /// board driver's actor: it must not block.
  public nonisolated func onCallToPlay(_ listener: @escaping @Sendable (_ board: String, _ latency: Duration) -> Void) {
    callToPlay.add(listener)
  }

  /// Calls `listener` with every press of a board's button and its kind (`.longPress`: held for the board's
  /// long-press time, 1 s by default), just before the press is submitted as `.acknowledge(board:)`: either
  /// kind acknowledges. An acknowledgement from elsewhere (the control socket, HTTP) is no press.
  public func onButton(_ listener: @escaping @Sendable (_ board: String, _ kind: PressKind) -> Void) {
    buttonListeners.append(listener)
  }

  private func buttonPressed(board: String, kind: PressKind) {
    for listener in buttonListeners { listener(board, kind) }
  }

  /// Acts on an input now; returns the events it caused. A call is stamped with `source` (where it came
  /// from, for the call budget) when one is given; without one it keeps its own (a SIP account's tracker
  /// stamps its calls itself).
  @discardableResult
  public func submit(_ input: EngineInput, from source: CallSource? = nil) -> [EngineEvent] {
    var input = input
    if let source, case .call(let call) = input { input = .call(call.from(source)) }
    let arrival: C.Instant? = if case .call = input { clock.now } else { nil }
    for listener in inputListeners { listener(input) }
    let effects = engine.handle(input, at: now)
    apply(effects, callArrival: arrival)
    return effects.compactMap { if case .event(let event) = $0 { event } else { nil } }
  }

  /// Acts on a push from `source` (`socket`, `<stdin>`, `http`; the call budget's source, see
  /// ``CallSource/init(controlSource:)``); calls and hangups without an id are matched to
  /// their calls by ``AnonymousCallTracker``, in the same turn as the engine acts, so no push overtakes one.
  public func submit(_ push: PushNotification, source: String) -> RequestOutcome {
    let resolution = anonymousCalls.resolve(
      push, source: source, defaultRegion: engine.configuration.defaultRegion, now: wallClock(),
      isActive: engine.isActive)
    switch resolution {
    case .ignored(let reason): return .ignored(reason)
    case .input(let input): return .of(input, events: submit(input, from: CallSource(controlSource: source)))
    }
  }

  /// Returns once the recorder (the history) has room for more events: at once while it keeps up. Every
  /// source calls it after submitting what it received, so that a flood slows to what the history's disk
  /// takes rather than the history dropping records; the call submitted before already rang.
  public nonisolated func roomForRecords() async {
    await recorderRoom?()
  }

  /// Restores unacknowledged missed calls (from the history) so the indicator blinks again.
  public func restoreMissed(_ calls: [IncomingCall]) {
    guard !calls.isEmpty else { return }
    apply(engine.restoreMissed(calls, at: now))
  }

  /// Replaces the configuration (reload), keeping calls.
  public func reconfigure(_ configuration: EngineConfiguration) {
    apply(engine.reconfigure(configuration, at: now))
  }

  /// What is going on, for `callalert status`.
  public func snapshot() -> EngineSnapshot {
    engine.snapshot(at: now)
  }

  /// The connected boards' INFO, by name.
  public func boardInfos() async -> [String: BoardInfo] {
    var infos: [String: BoardInfo] = [:]
    for (name, driver) in drivers {
      if let info = await driver.info { infos[name] = info }
    }
    return infos
  }

  /// The open lights' devices, by board name.
  public func boardDevices() async -> [String: String] {
    var devices: [String: String] = [:]
    for (name, driver) in drivers { devices[name] = await driver.deviceName }
    return devices
  }

  /// Each connected board's link counters, by name (for `/metrics`).
  public func boardLinkStatistics() async -> [String: BoardLinkStatistics] {
    var statistics: [String: BoardLinkStatistics] = [:]
    for (name, driver) in drivers { statistics[name] = await driver.linkStatistics }
    return statistics
  }

  /// How each board's link stands, by name: `connecting`, `connected`, `unresponsive` (the port is open but
  /// the board stopped answering) or `disconnected`.
  public func boardLinks() async -> [String: String] {
    var links: [String: String] = [:]
    for (name, driver) in drivers { links[name] = await driver.link.rawValue }
    return links
  }

  /// Puts a new pattern table on every board (the page's *Save and flash*): each CallAlert board flashes it
  /// when nothing plays there (a ringing one once it stops, one not connected when it connects), each light
  /// takes its patterns from it; boards connected later get it too. `progress` is told each board's bytes as
  /// they are acknowledged. Returns how it went for each board, by name, once every board has answered.
  public func installPatterns(
    _ build: PatternBuild, progress: @escaping @Sendable (String, TableInstallProgress) -> Void
  ) async -> [String: TableInstallOutcome] {
    patternTable = build
    let drivers = self.drivers
    return await withTaskGroup(of: (String, TableInstallOutcome).self) { group in
      for (name, driver) in drivers {
        group.addTask { (name, await driver.install(build) { progress(name, $0) }) }
      }
      var outcomes: [String: TableInstallOutcome] = [:]
      for await (name, outcome) in group { outcomes[name] = outcome }
      return outcomes
    }
  }

  /// Why each board that is not connected is not, by name: the last failure to connect it.
  public func boardProblems() async -> [String: String] {
    var problems: [String: String] = [:]
    for (name, driver) in drivers { problems[name] = await driver.problem }
    return problems
  }

  /// Connects every board and serves until cancelled; then stops every board and returns. The engine's
  /// deadlines are woken only while this runs (one set before is kept until it starts).
  public func run() async {
    let deadlines = self.deadlines
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await deadlines.run { [weak self] in await self?.deadlineReached() } }
      for (name, connect) in connectors {
        let driver = BoardDriver(
          name: name, clock: clock, logger: logger, linkTiming: linkTiming, wantedTable: patternTable, connect: connect,
          pressed: { [weak self] kind in await self?.buttonPressed(board: name, kind: kind) },
          submit: { [weak self] input in await self?.submit(input) }, callToPlay: callToPlay)
        drivers[name] = driver
        group.addTask { await driver.run() }
      }
      for (name, light) in lights {
        let device = LightBoard(
          name: name, kind: light.kind, appearance: light.appearance, patternTable: patternTable?.table, clock: clock,
          logger: logger, connect: light.open)
        let driver = BoardDriver(
          name: name, device: device, clock: clock, logger: logger,
          submit: { [weak self] input in await self?.submit(input) }, callToPlay: callToPlay)
        drivers[name] = driver
        group.addTask { await driver.run() }
      }
      await group.waitForAll()
    }
    for subscriber in subscribers.values { subscriber.finish() }
    subscribers.removeAll()
  }

  /// Board commands go to their drivers first and events are recorded after, so that the history's SQLite
  /// write is not inside the time from a call to its ring; each kind keeps the engine's order. A call's
  /// `callArrival` goes with its PLAYs, for ``onCallToPlay(_:)``.
  private func apply(_ effects: [EngineEffect], callArrival: C.Instant? = nil) {
    for effect in effects {
      switch effect {
      case .event: continue
      case .play(let board, _, _, _, _):
        drivers[board]?.enqueue(effect, callArrival: callArrival)
      case .stop(let board, _), .indicator(let board, _):
        drivers[board]?.enqueue(effect)
      }
    }
    for case .event(let event) in effects {
      let at = wallClock()
      if case .callsRefused(let source, let count, let first, _) = event { logRefusals(source, count, first) }
      recorder?(event, at)
      for subscriber in subscribers.values { subscriber.yield(Published(event: event, at: at)) }
    }
    reschedule()
  }

  /// One line per source and minute at most, as the engine sums them (a flood of 16 600 refusals was 16 600
  /// lines).
  private func logRefusals(_ source: CallSource, _ count: Int, _ first: IncomingCall) {
    let id = DisplayText.excerpt(first.id)
    if count == 1 {
      logger.notice(
        "\(source): refused call \(id): its source has \(AlertEngine.maximumActiveCallsPerSource) calls active, or \(AlertEngine.maximumActiveCalls) are active in all (more refusals from it are counted for a minute)"
      )
    } else {
      logger.notice("\(source): refused \(count) calls within a minute, the first \(id): too many calls active")
    }
  }

  private func reschedule() {
    deadlines.schedule(atMs: engine.nextDeadlineMs)
  }

  private func deadlineReached() {
    apply(engine.advance(to: now))
  }
}
