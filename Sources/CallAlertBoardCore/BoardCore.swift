import CallAlertProtocol

/// The portable firmware of a call-alert board: protocol, playback, safety limits, buttons, indicator and
/// pattern-table storage, as one synchronous state machine driven by bytes and a millisecond clock.
///
/// The owner (a firmware's main loop, a virtual board, a test) feeds it:
/// - ``receive(_:nowMs:)`` with bytes from the host, in any chunking;
/// - ``tick(nowMs:)`` at 1 kHz, or exactly at ``nextWakeMs`` and whenever a button level changes;
/// and after either, writes ``takeOutput()`` to the host. The core never reads a clock and never blocks;
/// the hardware sees ``BoardHardware/apply(_:nowMs:)`` only when the actuators change.
///
/// Safety does not depend on the host: every play ends at its cap (at most 30 s), when the host's lease
/// lapses, or when button 0 goes down; the motor is rested after a long run and held off at high duty.
/// After ``resetRequested`` becomes true (RESET was answered), every actuator is off and the core ignores
/// further input: the owner sends the remaining output, then creates a new core with
/// ``BootReason/resetCommand`` on the same flash.
public struct BoardCore<Hardware: BoardHardware, Flash: BoardFlash> {
  /// What plays now.
  public struct Playback: Sendable {
    /// The host's token for it.
    public var token: UInt32
    /// The table slot it came from; nil for an inline pattern.
    public var slot: UInt8?
    /// The channels it keeps silent.
    public var options: PlayOptions
    /// The pattern's progress.
    public var player: Player
  }

  /// The configuration in force (sanitised).
  public let configuration: BoardConfiguration
  /// The hardware. The owner may reach it (a virtual board sets its button levels here); the core
  /// assumes the actuators keep the last state it applied.
  public var hardware: Hardware
  /// The pattern-table store and the flash under it.
  public internal(set) var table: TableStore<Flash>
  /// The link: sequence numbers, retransmissions, decoder counters.
  public internal(set) var endpoint: LinkEndpoint
  /// The time the core booted.
  public let bootMs: UInt64
  /// Why it booted.
  public let bootReason: BootReason
  /// Every actuator as last applied.
  public internal(set) var actuators: ActuatorState
  /// Whether RESET was answered: the owner should send the output and restart the core.
  public internal(set) var resetRequested = false
  /// The play under way, if any.
  public internal(set) var playback: Playback?
  /// The host's lease.
  public internal(set) var lease: Lease
  /// Each LED's indicator mode.
  public internal(set) var indicators: [IndicatorLight]
  /// The motor's protection.
  public internal(set) var motorGuard: MotorGuard
  /// Each button's debouncer.
  public internal(set) var buttons: [ButtonDebouncer]
  /// Events waiting for room in the link's window.
  public internal(set) var events: EventQueue
  /// FAULT events raised since boot.
  public internal(set) var faultCount: UInt32 = 0
  /// The terms of the session a HELLO opened; nil before.
  public internal(set) var session: SessionTerms?
  /// Whether the host asked for ACTUATORS notifications.
  public internal(set) var tracesActuators = false
  /// Ticks that came too late, and the FAULT `tick_overrun` that reports them.
  public internal(set) var tickOverrun = TickOverrun()

  /// The wake-up time last handed to the owner (``nextWakeMs`` after the previous step): a tick later than
  /// this by more than ``TickOverrun/thresholdMs`` fell behind the clock.
  private var scheduledWakeMs: UInt64?

  /// The latest time seen: the clock never runs backwards inside the core.
  private var lastMs: UInt64

  /// Boots the board: draws a fresh nonce, mounts the pattern table (A/B), turns every actuator off and
  /// queues the BOOT event with the reason and the table's state.
  public init(
    configuration: BoardConfiguration, hardware: Hardware, flash: Flash, nowMs: UInt64, bootReason: BootReason
  ) {
    let configuration = configuration.sanitized
    var hardware = hardware
    var nonce = hardware.entropy()
    // 0 is what a host holds before it learns a nonce: it would not see this boot as a restart.
    for _ in 0..<4 where nonce == 0 { nonce = hardware.entropy() }
    if nonce == 0 { nonce = 1 }
    self.configuration = configuration
    self.hardware = hardware
    self.bootMs = nowMs
    self.bootReason = bootReason
    lastMs = nowMs
    table = TableStore(flash: flash, limits: configuration.patternLimits)
    endpoint = LinkEndpoint(
      role: .board, nonce: nonce, maxPayload: Int(configuration.maxPayload), window: 1, timing: configuration.timing)
    actuators = .off(motorCount: Int(configuration.motorChannels))
    lease = Lease(lengthMs: configuration.leaseMs, nowMs: nowMs)
    indicators = Array(repeating: IndicatorLight(), count: Int(configuration.leds))
    motorGuard = MotorGuard(
      maxOnMs: UInt64(configuration.motorMaxOnMs), restMs: UInt64(configuration.motorRestMs),
      windowMs: UInt64(configuration.motorDutyWindowMs), maxDutyPercent: UInt64(configuration.motorMaxDutyPercent),
      nowMs: nowMs)
    buttons = Array(
      repeating: ButtonDebouncer(
        debounceMs: UInt64(configuration.debounceMs), longPressMs: UInt64(configuration.longPressMs), nowMs: nowMs),
      count: Int(configuration.buttons))
    events = EventQueue(capacity: configuration.maxPendingEvents)
    self.hardware.apply(actuators, nowMs: nowMs)
    raise(.boot(BootEvent(reason: bootReason, table: table.bootState)))
    pumpEvents(now: nowMs)
    scheduledWakeMs = nextWakeMs
  }

  // MARK: - Driving

  /// Takes bytes from the host at `nowMs`: acts on every command they complete and answers it.
  ///
  /// Inlinable so that a host-side caller in another module gets a loop specialised for its collection
  /// (unspecialised, the generic loop allocates once per byte); the work is in the non-generic steps.
  @inlinable
  public mutating func receive(_ bytes: some Sequence<UInt8>, nowMs: UInt64) {
    guard let now = beginReceiving(nowMs: nowMs) else { return }
    var deliveries: [LinkEndpoint.Delivery] = []
    for byte in bytes { receiveByte(byte, now: now, into: &deliveries) }
    finishReceiving(deliveries, now: now)
  }

  /// The first step of ``receive(_:nowMs:)``: the time to use, or nil when RESET was answered.
  @usableFromInline
  mutating func beginReceiving(nowMs: UInt64) -> UInt64? {
    guard !resetRequested else { return nil }
    let now = clock(nowMs)
    advance(now: now)
    return now
  }

  @usableFromInline
  mutating func receiveByte(_ byte: UInt8, now: UInt64, into deliveries: inout [LinkEndpoint.Delivery]) {
    endpoint.receive(byte: byte, now: now, into: &deliveries)
  }

  /// The last step of ``receive(_:nowMs:)``: acts on the commands in order, then refreshes the outputs.
  @usableFromInline
  mutating func finishReceiving(_ deliveries: [LinkEndpoint.Delivery], now: UInt64) {
    for delivery in deliveries {
      if resetRequested { break }  // what follows RESET is for the next boot
      guard case .command(let sequence, let command) = delivery else { continue }
      handle(command, sequence: sequence, now: now)
    }
    refresh(now: now)
  }

  /// Advances time to `nowMs`: retransmits overdue events, samples the buttons, ends plays at their cap,
  /// natural end or lapsed lease, and drives the actuators.
  public mutating func tick(nowMs: UInt64) {
    guard !resetRequested else { return }
    let now = clock(nowMs)
    _ = endpoint.poll(now: now)  // a stall needs no action: events wait until the host is heard again
    advance(now: now)
    refresh(now: now)
  }

  /// Hands over the bytes to send to the host.
  public mutating func takeOutput() -> [UInt8] { endpoint.takeOutput() }

  /// The earliest time at which something changes without input: a step boundary, a cap, the lease,
  /// an indicator blink, the end of a motor rest or duty hold, a retransmission, a button's debounce or
  /// long press. Nil when nothing will (or after RESET). Button level changes are input: tick on them.
  public var nextWakeMs: UInt64? {
    guard !resetRequested else { return nil }
    var wake = endpoint.nextDeadline
    func consider(_ time: UInt64?) {
      guard let time else { return }
      wake = min(wake ?? time, time)
    }
    if let playback {
      consider(playback.player.nextBoundaryMs)
      consider(lease.deadlineMs)
    }
    for light in indicators { consider(light.nextChangeMs(after: lastMs)) }
    consider(motorGuard.nextWakeMs)
    consider(tickOverrun.nextWakeMs)
    for button in buttons { consider(button.nextWakeMs) }
    return wake
  }

  /// The boot nonce, in the header of every frame the board sends.
  public var nonce: UInt32 { endpoint.nonce }

  /// The flash (for the owner to keep across a reset, or a test to inspect).
  public var flash: Flash { table.flash }

  /// The token playing now, if any.
  public var playingToken: UInt32? { playback?.token }

  // MARK: - Time

  private mutating func clock(_ nowMs: UInt64) -> UInt64 {
    lastMs = max(lastMs, nowMs)
    // Catching up needs nothing more (step boundaries, cap and lease are anchored to when they were due);
    // how late the step is gets reported (PROTOCOL.md §13.8).
    tickOverrun.tick(scheduledMs: scheduledWakeMs, nowMs: lastMs)
    return lastMs
  }

  /// Ends what time has ended (cap, natural end, lease), then takes the buttons' news.
  private mutating func advance(now: UInt64) {
    if let position = playback?.player.advance(to: now) {
      var end: (reason: PlayEndReason, atMs: UInt64)? = nil
      switch position {
      case .step: break
      case .completed(let at): end = (.completed, at)
      case .capped(let at): end = (.cap, at)
      }
      // The lease is checked only while something plays; the earliest end wins.
      if lease.hasLapsed(atMs: now), lease.deadlineMs < end?.atMs ?? .max {
        end = (.lease, lease.deadlineMs)
      }
      if let end { endPlay(end.reason, atMs: end.atMs) }
    }
    let levels = hardware.buttonLevels()
    for index in buttons.indices {
      let output = buttons[index].sample(pressed: (levels >> UInt8(index)) & 1 == 1, nowMs: now)
      // Button 0 silences the call the moment it goes down: nobody should have to let go (or wait for a
      // long press) to stop the ringing. The press itself is still reported when its kind is known.
      if output.wentDown && index == 0 && playback != nil { endPlay(.stopped, atMs: now) }
      if let report = output.report {
        raise(.button(ButtonEvent(button: UInt8(index), kind: report.kind, heldMs: report.heldMs)))
      }
    }
  }

  /// Ends the play under way with `reason`, reporting PLAY_ENDED with the time it played until `atMs`.
  mutating func endPlay(_ reason: PlayEndReason, atMs: UInt64) {
    guard let current = playback else { return }
    let start = current.player.startMs
    let played = atMs > start ? atMs - start : 0
    playback = nil
    raise(.playEnded(PlayEndedEvent(token: current.token, reason: reason, playedMs: UInt32(clamping: played))))
  }

  // MARK: - Outputs

  /// Computes every actuator from the playing step, the options, the motor guard and the indicators;
  /// applies and traces the state if it changed; sends the events there is room for.
  mutating func refresh(now: UInt64) {
    let motorCount = Int(configuration.motorChannels)
    var state = ActuatorState.off(motorCount: motorCount)
    var motor: UInt8 = 0
    if !resetRequested, let current = playback, let step = current.player.currentStep {
      if !current.options.contains(.muteBuzzer), configuration.buzzerChannels > 0, step.isAudible {
        state.buzzerHz = step.buzzerHz
        state.buzzerVolume = step.buzzerVolume
      }
      if !current.options.contains(.muteMotor) { motor = step.motor }
      if !current.options.contains(.muteLeds) { state.leds = step.leds }
    }
    let outcome = motorGuard.update(nowMs: now, requested: motor != 0 && motorCount > 0)
    for fault in outcome.faults { raise(.fault(fault)) }
    if outcome.running {
      for index in state.motors.indices { state.motors[index] = motor }
    }
    if !resetRequested {
      for (index, light) in indicators.enumerated() where light.isLit(atMs: now) { state.leds |= 1 << UInt8(index) }
    }
    let ledCount = Int(configuration.leds)
    state.leds &= ledCount >= 8 ? 0xFF : UInt8((1 << ledCount) - 1)  // bits for missing LEDs are ignored
    if state != actuators {
      actuators = state
      hardware.apply(state, nowMs: now)
      if tracesActuators && endpoint.hasSession {
        endpoint.notify(ActuatorTrace(boardMs: UInt32(truncatingIfNeeded: now - bootMs), state: state))
      }
    }
    if !resetRequested, let overrun = tickOverrun.report(nowMs: now) { raise(.fault(overrun)) }
    pumpEvents(now: now)
    scheduledWakeMs = nextWakeMs
  }

  // MARK: - Events

  /// Queues an event (bounded; see ``EventQueue``), counting FAULTs.
  mutating func raise(_ event: Event) {
    if case .fault = event { faultCount &+= 1 }
    events.push(event, inFlight: eventsInLink)
  }

  private var eventsInLink: Int { endpoint.sender.inFlightCount + endpoint.sender.queuedCount }

  /// Events raised and not yet acknowledged by the host: waiting for room in the link, or sent and unanswered.
  public var unacknowledgedEvents: Int { events.waiting.count + eventsInLink }

  /// Moves waiting events into the link while its window has room, and reports drops once it can.
  private mutating func pumpEvents(now: UInt64) {
    while true {
      if let overflow = events.takeOverflowReport(inFlight: eventsInLink) {
        faultCount &+= 1
        events.push(overflow, inFlight: eventsInLink)
      }
      let sender = endpoint.sender
      guard !sender.isPaused, sender.queuedCount == 0, sender.inFlightCount < sender.window,
        let event = events.popFirst()
      else { return }
      endpoint.send(event: event, now: now)
    }
  }
}
