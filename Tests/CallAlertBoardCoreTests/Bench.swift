import CallAlertBoardCore
import CallAlertProtocol
import Testing

typealias Core = BoardCore<RecordingHardware, NORFlash>

/// A board core wired to a real host endpoint through bytes, in virtual time.
///
/// Time only moves in ``advance(to:)``, which ticks the core exactly at each ``BoardCore/nextWakeMs``
/// (and the host at its retransmission deadlines), exchanging bytes after every step.
struct Bench {
  var core: Core
  var host: LinkEndpoint
  var now: UInt64
  /// Events the host received, with the time.
  var events: [(ms: UInt64, event: Event)] = []
  /// Answers the host received.
  var answers: [(sequence: UInt16, message: Message)] = []
  /// ACTUATORS notifications the host received.
  var traces: [ActuatorTrace] = []
  /// Nonces the host saw the board restart with.
  var restarts: [UInt32] = []
  /// Every frame the board sent, as parsed on the wire (retransmissions included).
  var boardFrames: [Frame] = []
  /// When set, the host's bytes are lost (the board never hears the host).
  var hostMuted = false
  /// Frames the host's bytes carried to the board (each ends with the only 0x00 COBS leaves).
  var hostFramesDelivered: UInt32 = 0
  private var wire = FrameDecoder()

  init(
    configuration: BoardConfiguration = Bench.configuration, flash: NORFlash = NORFlash(), now: UInt64 = 0,
    seed: UInt32 = 0x1234_5678, bootReason: BootReason = .powerOn, hostMuted: Bool = false
  ) {
    self.now = now
    self.hostMuted = hostMuted
    core = Core(
      configuration: configuration, hardware: RecordingHardware(seed: seed), flash: flash, nowMs: now,
      bootReason: bootReason)
    host = LinkEndpoint(role: .host, window: 1)
    exchange()
  }

  static var configuration: BoardConfiguration {
    BoardConfiguration(serial: Array("CA-0001".utf8), firmware: .init(major: 1, minor: 2, patch: 3))
  }

  var timeline: [Change] { core.hardware.timeline }

  /// Events of one kind, in order.
  var playEnds: [PlayEndedEvent] {
    events.compactMap { if case .playEnded(let e) = $0.event { return e } else { return nil } }
  }
  var buttonEvents: [(ms: UInt64, event: ButtonEvent)] {
    events.compactMap { if case .button(let e) = $0.event { return ($0.ms, e) } else { return nil } }
  }
  var faults: [(ms: UInt64, event: FaultEvent)] {
    events.compactMap { if case .fault(let e) = $0.event { return ($0.ms, e) } else { return nil } }
  }

  /// Moves bytes both ways until both sides are quiet.
  mutating func exchange() {
    for _ in 0..<100 {
      let fromBoard = core.takeOutput()
      if !fromBoard.isEmpty { hostReceive(fromBoard) }
      let fromHost = host.takeOutput()
      if !fromHost.isEmpty && !hostMuted {
        hostFramesDelivered += UInt32(fromHost.filter { $0 == 0 }.count)
        core.receive(fromHost, nowMs: now)
      }
      if fromBoard.isEmpty && (fromHost.isEmpty || hostMuted) { return }
    }
    Issue.record("the link never went quiet")
  }

  mutating func hostReceive(_ bytes: [UInt8]) {
    for output in wire.feed(bytes) { if case .frame(let frame) = output { boardFrames.append(frame) } }
    for delivery in host.receive(bytes, now: now) {
      switch delivery {
      case .answer(let sequence, let message): answers.append((sequence, message))
      case .event(_, let event): events.append((now, event))
      case .actuators(let trace): traces.append(trace)
      case .peerRestarted(let nonce): restarts.append(nonce)
      default: break
      }
    }
  }

  /// Sends a command and returns its answer (nil when none came back).
  @discardableResult
  mutating func send(_ command: Command) -> Message? {
    let sequence = host.send(command: command, now: now)
    exchange()
    return answers.last { $0.sequence == sequence }?.message
  }

  /// Opens a session; applies the negotiated terms on the host side too.
  @discardableResult
  mutating func hello(_ hello: Hello = Hello()) -> Message? {
    let answer = send(.hello(hello))
    if case .reply(_, .info(let info))? = answer {
      host.apply(
        SessionTerms(
          version: info.sessionVersion, maxPayload: min(Int(hello.maxPayload), Int(info.capabilities.maxPayload)),
          window: min(Int(hello.window), Int(info.capabilities.window))))
    }
    return answer
  }

  /// Runs virtual time to `target`, waking exactly when the core (or the host) asks to.
  mutating func advance(to target: UInt64) {
    var steps = 0
    repeat {
      var next = target
      if let wake = core.nextWakeMs, wake < next { next = max(wake, now) }
      if let deadline = host.nextDeadline, deadline < next { next = max(deadline, now) }
      if next == now && steps > 0 {
        if let wake = core.nextWakeMs, wake <= now {
          Issue.record("nextWakeMs \(wake) does not move past \(now)")
          return
        }
      }
      now = next
      core.tick(nowMs: now)
      for delivery in host.poll(now: now) { _ = delivery }
      exchange()
      steps += 1
    } while now < target
  }

  mutating func advance(by ms: UInt64) { advance(to: now + ms) }

  /// Runs to `target` renewing the lease every `every` ms (as a live host does).
  mutating func advance(to target: UInt64, renewingLeaseEvery every: UInt64, leaseMs: UInt16 = 3_000) {
    while now < target {
      advance(to: min(target, now + every))
      if now < target { send(.lease(ms: leaseMs)) }
    }
  }

  /// Sets the raw button levels at the current time and lets the core see them.
  mutating func setButtons(_ levels: UInt8) {
    core.hardware.levels = levels
    core.tick(nowMs: now)
    exchange()
  }

  /// Sends a whole table in chunks and commits it; returns the commit's answer.
  @discardableResult
  mutating func transfer(_ table: [UInt8], chunk: Int = 64) -> Message? {
    guard case .reply(_, .tableReady)? = send(.tableBegin(TableBegin(size: UInt32(table.count), crc: tableCRC(table))))
    else { return nil }
    var offset = 0
    while offset < table.count {
      let end = min(table.count, offset + chunk)
      guard
        case .reply(_, .tableProgress)? = send(.tableData(offset: UInt32(offset), bytes: Array(table[offset..<end])))
      else { return nil }
      offset = end
    }
    return send(.tableCommit(crc: tableCRC(table)))
  }
}

// MARK: - Shorthands

/// A table's own CRC, which TABLE_BEGIN and TABLE_COMMIT carry: CRC-32C of all but its last 4 bytes.
func tableCRC(_ table: [UInt8]) -> UInt32 { CRC32C.checksum(table.dropLast(4)) }

func reply(_ type: MessageType, _ reply: Reply) -> Message? { .reply(to: type, reply) }
func nak(_ type: MessageType, _ code: ErrorCode, _ detail: UInt32 = 0) -> Message? {
  .nak(to: type.rawValue, Nak(code, detail: detail))
}

func step(
  _ ms: UInt16, hz: UInt16 = 0, volume: UInt8 = 0, motor: UInt8 = 0, leds: UInt8 = 0
) -> PatternStep {
  PatternStep(durationMs: ms, buzzerHz: hz, buzzerVolume: volume, motor: motor, leds: leds)
}

func state(hz: UInt16 = 0, volume: UInt8 = 0, leds: UInt8 = 0, motor: UInt8 = 0) -> ActuatorState {
  ActuatorState(buzzerHz: hz, buzzerVolume: volume, leds: leds, motors: [motor])
}

let off = state()

/// A ring that never ends by itself: a 1 kHz beep with the motor, then a pause.
let ring = Pattern(
  steps: [step(400, hz: 1_000, volume: 200, motor: 255, leds: 0b10), step(200)], repeatCount: Pattern.repeatForever)

/// A tone that sounds without a gap (and without the motor, so that motor protection stays out of the way).
let tone = Pattern(
  steps: [step(250, hz: 1_000, volume: 200, leds: 0b10), step(250, hz: 1_500, volume: 200, leds: 0b10)],
  repeatCount: Pattern.repeatForever)

func play(_ token: UInt32, _ pattern: Pattern = ring, cap: UInt16 = 0, options: PlayOptions = []) -> Command {
  .play(PlayRequest(token: token, capMs: cap, options: options, source: .inline(pattern)))
}

/// A table with a looping ring in slot 0, an empty slot 1 and a short buzz in slot 2.
func sampleTable(version: UInt32 = 7) -> PatternTable {
  PatternTable(
    version: version,
    slots: [
      .init(name: Array("ring".utf8), pattern: ring),
      nil,
      .init(
        name: Array("buzz".utf8),
        pattern: Pattern(steps: [step(100, motor: 128), step(50), step(100, motor: 255, leds: 1)], repeatCount: 2)),
    ])
}
