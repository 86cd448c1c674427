import CallAlertBridges
import CallAlertControl
import CallAlertEngine
import CallAlertMQTT
import CallAlertPatterns
import CallAlertProtocol
import CallAlertValues
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The daemon on an MQTT broker (docs/MQTT.md): calls in from `<base>/calls/<id>` (QoS 1, deduplicated),
/// this host's state out as retained messages, acknowledgements and do-not-disturb shared with every host,
/// commands and Home Assistant discovery. Between messages it waits; libmosquitto's thread keeps the
/// connection (keepalive, reconnection with backoff), and the retained state is compared with the engine's
/// after every event and every input that changes it without an event (a board plugged in, a switch from
/// the control socket), and once per keepalive as a safety net; it is published only when it changed.
public actor MQTTBridge<C: Clock<Duration>> {
  private let settings: MQTTSettings
  /// Where its calls go, as `mqtt`.
  private let intake: CallIntake<C>
  /// The engine, for what MQTT does besides calls: do-not-disturb, acknowledgements, the shared state.
  private let service: AlertService<C>
  private let logger: Logger
  private let tones: [String]
  private let capMs: UInt64
  private let topics: MQTTTopics
  private let discovery: HomeAssistantDiscovery
  private var connection: MQTTConnection?
  private var shared: MQTTSharedState
  private var deduplicator = MQTTDeduplicator()
  /// Times the deduplication window.
  private let clock: C
  private let started: C.Instant
  private var health = BridgeHealth(state: .connecting)
  private var missedHere: Set<String> = []
  /// Calls another host's acknowledgement named: clearing them here is not announced again, so that one
  /// acknowledgement makes one message, not one per host.
  private var acknowledgedElsewhere: Set<String> = []
  private var sirenCalls: [String: String] = [:]
  private var sirenCount = 0
  private var discoveryConfigs: [HomeAssistantDiscovery.Config] = []
  /// The boards (with firmware) the discovery configs describe: announced again when a firmware shows up.
  private var announcedBoards: [HomeAssistantDiscovery.Board] = []

  /// The bridge for the context's `mqtt:` section; nil without one.
  static func make(_ context: CallSourceContext<C>) -> MQTTBridge? {
    guard let settings = context.configuration.mqtt else { return nil }
    let tones = (context.patterns?.file.patterns.map(\.name) ?? []) + BuiltInPatterns.names
    return MQTTBridge(
      settings: settings, intake: context.intake, service: context.service, tones: tones,
      capMs: context.configuration.engine.capMs, clock: context.clock, logger: context.logger)
  }

  init(
    settings: MQTTSettings, intake: CallIntake<C>, service: AlertService<C>,
    tones: [String], capMs: UInt64, clock: C, logger: Logger
  ) {
    self.clock = clock
    started = clock.now
    self.settings = settings
    self.intake = intake
    self.service = service
    self.tones = tones
    self.capMs = capMs
    self.logger = logger
    topics = MQTTTopics(base: settings.baseTopic, node: settings.nodeID, discoveryPrefix: settings.discoveryPrefix)
    discovery = HomeAssistantDiscovery(topics: topics)
    shared = MQTTSharedState(topics: topics, shareDoNotDisturb: settings.shareDoNotDisturb)
  }

  /// The connection's health for `callalert status`, as a source of kind `mqtt`.
  func status() -> StatusReport.Source {
    StatusReport.Source(
      name: settings.nodeID, kind: "mqtt", address: settings.url, state: health.state.rawValue, reason: health.reason,
      failures: health.failures)
  }

  /// Connects and serves until cancelled; then marks this host offline and disconnects.
  func run() async {
    let connection: MQTTConnection
    do {
      var password: String?
      if let file = settings.passwordFile { password = try SecretFile.read(file, holding: "the MQTT password") }
      connection = try MQTTConnection(
        .init(
          host: settings.host, port: settings.port, tls: settings.tls, caFile: settings.caFile,
          clientID: settings.clientID, username: settings.username, password: password,
          keepaliveSeconds: settings.keepaliveSeconds,
          will: (topics.availability, MQTTSharedState.offline)))
    } catch {
      health = BridgeHealth(state: .failing, reason: "\(error)", failures: health.failures + 1)
      logger.error("mqtt \(settings.url): \(error)")
      return
    }
    logger.info("mqtt \(settings.url): connecting as \(settings.clientID), node \(settings.nodeID)")
    // The first connection is retried here (libmosquitto's thread takes over once one was begun).
    var backoff = ReconnectBackoff()
    while true {
      do {
        try connection.start()
        break
      } catch {
        let delay = backoff.nextDelay()
        health = BridgeHealth(state: .failing, reason: "\(error)", nextAttemptIn: delay, failures: health.failures + 1)
        logger.warning("mqtt \(settings.url): \(error); next attempt in \(delay)")
        guard (try? await Task.sleep(for: delay)) != nil else {
          connection.close()
          return
        }
      }
    }
    self.connection = connection
    let events = await service.subscribe()
    await service.onInput { [weak self] input in Task { await self?.handle(input) } }
    await service.onButton { [weak self] board, kind in Task { await self?.publishButton(board, kind) } }
    let keepalive = Duration.seconds(settings.keepaliveSeconds)
    await withTaskGroup(of: Void.self) { group in
      group.addTask { for await event in connection.events { await self.handle(event) } }
      group.addTask { for await published in events { await self.handle(published.event) } }
      group.addTask {
        while (try? await Task.sleep(for: keepalive)) != nil { await self.refresh() }
      }
      // Cancellation (the daemon stopping) ends each: streams finish, the sleep throws.
      await group.waitForAll()
    }
    // A clean disconnect sends no Last Will: say so ourselves.
    try? connection.publish(topics.availability, MQTTSharedState.offline, retain: true)
    connection.close()
    self.connection = nil
  }

  // MARK: - The broker

  private func handle(_ event: MQTTConnectionEvent) async {
    switch event {
    case .connected:
      health = BridgeHealth(state: .connected)
      logger.notice("mqtt \(settings.url): connected as \(settings.clientID)")
      var filters = [topics.callsFilter, topics.missedFilter, topics.acknowledgements] + topics.commandsFilters
      if settings.shareDoNotDisturb { filters.append(topics.doNotDisturb) }
      if let status = topics.homeAssistantStatus { filters.append(status) }
      if let own = topics.ownDiscoveryFilter { filters.append(own) }
      for filter in filters { send { (connection) throws(MQTTError) in try connection.subscribe(filter) } }
      shared.reset()
      await announce()
      await refresh()
    case .refused(let reason), .disconnected(let reason):
      let failures = health.state == .connected ? 1 : health.failures + 1
      health = BridgeHealth(state: .failing, reason: reason, failures: failures)
      logger.warning("mqtt \(settings.url): \(reason); libmosquitto reconnects with backoff")
    case .message(let message):
      await handle(message)
    }
  }

  private func handle(_ message: MQTTMessage) async {
    switch topics.route(message.topic) {
    case .call(let id):
      await call(message, id: id)
    case .missed(let id):
      shared.received(missed: id, payload: message.payload)
      let snapshot = await service.snapshot()
      let missed = snapshot.missedCalls.map(\.id)
      let ringing = snapshot.activeCalls.map(\.call.id)
      if message.payload.isEmpty {
        // Cleared on another host (its acknowledgement, seen late): clear here too.
        // Every missed call here is that one: acknowledged as the button does; else that one alone.
        if missed == [id] {
          await acknowledge(because: "missed call \(id) was cleared on another host")
        } else if missed.contains(id) {
          logger.info("mqtt: acknowledging missed call \(id): it was cleared on another host")
          await service.submit(.acknowledgeMissed(callID: id))
          await refresh()
        }
      } else if !missed.contains(id), !ringing.contains(id), !deduplicator.knows(callID: id),
        let call = MQTTSharedState.missedCall(message.payload, id: id)
      {
        // A call this host never saw (it was off, or its rules held it): missed here too, until acknowledged.
        _ = deduplicator.admit(.call(call), nowMs: elapsedMs)
        await service.restoreMissed([call])
        await refresh()
      }
    case .acknowledgement:
      guard let ack = MQTTAcknowledgement.decode(message.payload) else { return }
      if ack.node != settings.nodeID { acknowledgedElsewhere.formUnion(ack.calls) }
      let snapshot = await service.snapshot()
      let ringing = snapshot.activeCalls.map(\.call.id)
      let missed = snapshot.missedCalls.map(\.id)
      guard ack.applies(to: settings.nodeID, ringing: ringing, missed: missed) else { return }
      // As a board's button: every ringing call, or with none ringing every missed call, when it names them all.
      if ringing.contains(where: ack.calls.contains) || missed.allSatisfy(ack.calls.contains) {
        await acknowledge(because: "acknowledged on \(ack.node)")
      } else {
        // The missed calls it names, and only those: one acknowledged alone elsewhere leaves the others here.
        logger.info("mqtt: acknowledging the missed calls acknowledged on \(ack.node)")
        for id in missed where ack.calls.contains(id) { await service.submit(.acknowledgeMissed(callID: id)) }
        await refresh()
      }
    case .doNotDisturb:
      let dnd = await service.snapshot().doNotDisturb
      let current = (dnd.override?.rawValue, dnd.until.map(Timestamp.iso8601))
      if let change = shared.received(doNotDisturb: message.payload, current: current, now: service.wallNow) {
        let until = change.until.map { " until \(Timestamp.iso8601($0))" } ?? ""
        logger.info("mqtt: do-not-disturb \(change.mode.rawValue)\(until), switched on another host")
        await service.submit(.setDoNotDisturb(change.mode, until: change.until))
        await refresh()
      }
    case .command(let command):
      await hostCommand(command, message.payload)
    case .ring(let board):
      await ring(board, message.payload)
    case .homeAssistantStatus:
      if message.payload == Array("online".utf8) { await announce() }
    case .ownDiscovery(let topic):
      if !message.payload.isEmpty, !discoveryConfigs.contains(where: { $0.topic == topic }) {
        logger.info("mqtt: removing \(topic) (no longer configured)")
        send { (connection) throws(MQTTError) in try connection.publish(topic, [], retain: true) }
      }
    case .other:
      return
    }
  }

  private func call(_ message: MQTTMessage, id: String) async {
    let decoded: MQTTCallMessage.Decoded
    do {
      decoded = try MQTTCallMessage.decode(
        message.payload, topic: message.topic, topicID: id, retained: message.retained, now: Date())
    } catch {
      logger.warning("mqtt: refused \(error)")
      return
    }
    guard case .input(let input) = decoded else { return }
    if MQTTCallMessage.isStale(input, retained: message.retained, now: Date(), capMs: capMs) {
      logger.debug("mqtt: \(message.topic): a retained call past its cap, skipped")
      return
    }
    guard deduplicator.admit(input, nowMs: elapsedMs) else {
      logger.debug("mqtt: \(message.topic) again (redelivered or retained): already handled")
      return
    }
    await intake.submit(input, from: .mqtt)
  }

  private func hostCommand(_ command: MQTTTopics.HostCommand, _ payload: [UInt8]) async {
    let text = String(decoding: payload, as: UTF8.self).uppercased()
    switch command {
    case .doNotDisturb:
      guard text == "ON" || text == "OFF" else { return logger.notice("mqtt: dnd takes ON or OFF, not \(text)") }
      await service.submit(.setDoNotDisturb(text == "ON" ? .on : .off))
    case .silent:
      guard text == "ON" || text == "OFF" else { return logger.notice("mqtt: silent takes ON or OFF, not \(text)") }
      await service.submit(.setSilent(text == "ON"))
    case .acknowledge:
      await service.submit(.acknowledge(board: nil))
    }
    await refresh()
  }

  /// Home Assistant's siren: ON rings a pattern on one board for its duration (a call of this host's own,
  /// `ha-<board>-<n>`, recorded like any other), OFF stops it. It ends as answered, never as a missed call:
  /// a test ring is nothing to acknowledge.
  private func ring(_ board: String, _ payload: [UInt8]) async {
    guard let command = SirenCommand.decode(payload) else {
      return logger.notice("mqtt: a ring command is ON, OFF or {\"state\":\"ON\",\"tone\":…,\"duration\":…}")
    }
    if let previous = sirenCalls[board] { await service.submit(.answered(callID: previous)) }
    sirenCalls[board] = nil
    guard command.on else { return await refresh() }
    sirenCount += 1
    let id = "ha-\(board)-\(sirenCount)"
    sirenCalls[board] = id
    // Ends a little before the cap, so that the cap never makes it a missed call.
    let durationMs = min(command.duration.map { UInt64(max(1, $0)) * 1_000 } ?? capMs, max(capMs, 200) - 100)
    await service.submit(
      .call(
        IncomingCall(
          id: id, callerName: "Home Assistant", sentAt: Date(), level: .critical, patternHint: command.tone,
          boards: [board], source: .mqtt)))
    Task { [weak self] in
      guard (try? await Task.sleep(for: .milliseconds(durationMs))) != nil else { return }
      await self?.sirenEnded(board: board, id: id)
    }
  }

  private func sirenEnded(board: String, id: String) async {
    guard sirenCalls[board] == id else { return }
    sirenCalls[board] = nil
    await service.submit(.answered(callID: id))
  }

  private func acknowledge(because reason: String) async {
    logger.info("mqtt: acknowledging: \(reason)")
    await service.submit(.acknowledge(board: nil))
    await refresh()
  }

  // MARK: - The engine

  private func handle(_ event: EngineEvent) async {
    switch event {
    case .missed(let call, _):
      missedHere.insert(call.id)
    case .missedAcknowledged:
      let calls = missedHere.union(shared.missedIDs).sorted()
      missedHere = []
      publishAcknowledgement(calls)
    case .stopped(let id, .acknowledged):
      publishAcknowledgement([id])
    case .missedCallAcknowledged(let id):
      missedHere.remove(id)
      publishAcknowledgement([id])
    case .doNotDisturbEnded:
      // No input switched it: the state is compared now, as after a switch.
      await refresh()
    default:
      break
    }
    await refresh()
  }

  /// A board's button, to Home Assistant's event entity: `press`, or `long_press` for one held for the board's
  /// long-press time (reported while still held; its release is no event).
  private func publishButton(_ board: String, _ kind: PressKind) {
    let payload = HomeAssistantDiscovery.buttonEvent(long: kind == .longPress)
    send { (connection) throws(MQTTError) in try connection.publish(topics.button(board), payload, retain: false) }
  }

  /// An input the engine acted on: switches and boards coming and going make no event, so the state is
  /// compared now rather than at the next keepalive.
  private func handle(_ input: EngineInput) async {
    switch input {
    case .setDoNotDisturb, .setSilent, .boardBack, .boardLost:
      await refresh()
    default:
      break
    }
  }

  private func publishAcknowledgement(_ all: [String]) {
    let calls = all.filter { !acknowledgedElsewhere.contains($0) }
    acknowledgedElsewhere.subtract(all)
    guard !calls.isEmpty else { return }
    let ack = MQTTAcknowledgement(node: settings.nodeID, calls: calls)
    send { (connection) throws(MQTTError) in try connection.publish(topics.acknowledgements, ack.payload, retain: false)
    }
  }

  /// Publishes what changed in this host's state.
  private func refresh() async {
    guard health.state == .connected else { return }
    let report = StatusReport(
      await service.snapshot(), boardInfos: await service.boardInfos(), boardLinks: await service.boardLinks())
    for publication in shared.update(report) {
      send { (connection) throws(MQTTError) in
        try connection.publish(publication.topic, publication.payload, retain: publication.retain)
      }
    }
    if settings.discoveryPrefix != nil, boards(report) != announcedBoards { await announce() }
  }

  /// The boards for discovery; a board that went away keeps the firmware it last reported.
  private func boards(_ report: StatusReport) -> [HomeAssistantDiscovery.Board] {
    report.boards.map { board in
      let known = announcedBoards.first { $0.name == board.name }?.firmware
      return HomeAssistantDiscovery.Board(name: board.name, firmware: board.firmware ?? known)
    }
  }

  /// Publishes the discovery configs (at connection, and when Home Assistant comes online).
  private func announce() async {
    guard settings.discoveryPrefix != nil else { return }
    let report = StatusReport(await service.snapshot(), boardInfos: await service.boardInfos())
    announcedBoards = boards(report)
    discoveryConfigs = discovery.configs(boards: announcedBoards, tones: tones)
    for config in discoveryConfigs {
      send { (connection) throws(MQTTError) in try connection.publish(config.topic, config.payload, retain: true) }
    }
  }

  private func send(_ body: (MQTTConnection) throws(MQTTError) -> Void) {
    guard let connection else { return }
    do { try body(connection) } catch { logger.warning("mqtt: \(error)") }
  }

  private var elapsedMs: UInt64 {
    let (seconds, attoseconds) = started.duration(to: clock.now).components
    return UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
  }
}

/// The MQTT link (`mqtt:` in the config) as a source of calls: made only when configured.
struct MQTTService<C: Clock<Duration>>: CallSourceService {
  let bridge: MQTTBridge<C>

  /// The service for the context's `mqtt:` section; nil without one.
  init?(_ context: CallSourceContext<C>) {
    guard let bridge = MQTTBridge.make(context) else { return nil }
    self.bridge = bridge
  }

  func run() async throws {
    await cancelWhenGracefulShutdown { await bridge.run() }
  }

  func health() async -> [StatusReport.Source] { [await bridge.status()] }
}
