import CallAlertProtocol
import PropertyBased

extension RandomNumberGenerator {
  /// A value in `range`, by multiply-shift of one 64-bit output: the same seed gives the same value on every
  /// platform and Swift version (unlike `Int.random(in:using:)`, whose algorithm is not promised).
  mutating func draw(_ range: ClosedRange<UInt64>) -> UInt64 {
    let span = range.upperBound &- range.lowerBound
    if span == .max { return next() }
    return range.lowerBound + (span + 1).multipliedFullWidth(by: next()).high
  }

  /// A value in `range`.
  mutating func draw(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(draw(0...UInt64(range.upperBound - range.lowerBound)))
  }

  /// True with probability `probability`.
  mutating func chance(_ probability: Double) -> Bool {
    Double(next() >> 11) * 0x1.0p-53 < probability
  }

  /// An unsigned integer that is an edge value (0, 1, max - 1, max, the top bit) one time in five, uniform otherwise.
  mutating func edgy<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type = T.self) -> T {
    if chance(0.2) {
      let edges: [T] = [0, 1, T.max - 1, T.max, T(1) << (T.bitWidth - 1)]
      return edges[draw(0...edges.count - 1)]
    }
    return T(truncatingIfNeeded: next())
  }

  /// An unsigned integer in `range`.
  mutating func edgy<T: FixedWidthInteger & UnsignedInteger>(in range: ClosedRange<T>) -> T {
    if chance(0.2) { return chance(0.5) ? range.lowerBound : range.upperBound }
    return T(draw(UInt64(range.lowerBound)...UInt64(range.upperBound)))
  }

  /// `count` random bytes, zero-heavy one time in four (COBS's interesting case).
  mutating func bytes(count: Int) -> [UInt8] {
    let zeroRate = chance(0.25) ? 0.5 : 0.0
    return (0..<count).map { _ in chance(zeroRate) ? 0 : UInt8(truncatingIfNeeded: next()) }
  }

  /// One of `elements`.
  mutating func pick<T>(_ elements: [T]) -> T { elements[draw(0...elements.count - 1)] }
}

/// Random, valid protocol values: every case of every message, with fields anywhere in their allowed ranges.
/// Used by the property tests through ``Gen`` and by the link simulation through ``SplitMix64``.
enum Arbitrary {
  /// Every command type.
  static let commandTypes = MessageType.allCases.filter(\.isCommand)
  /// Every event type.
  static let eventTypes = MessageType.allCases.filter(\.isEvent)

  /// A pattern step.
  static func step(using rng: inout some RandomNumberGenerator) -> PatternStep {
    PatternStep(
      durationMs: rng.edgy(in: 1...UInt16.max), buzzerHz: rng.edgy(), buzzerVolume: rng.edgy(), motor: rng.edgy(),
      leds: rng.edgy())
  }

  /// A pattern the codec accepts: 1 to 40 steps, loop_start inside them, no zero-length step.
  static func pattern(using rng: inout some RandomNumberGenerator) -> Pattern {
    let count = rng.chance(0.8) ? rng.draw(1...4) : rng.draw(1...40)
    let steps = (0..<count).map { _ in step(using: &rng) }
    return Pattern(steps: steps, repeatCount: rng.edgy(), loopStart: UInt16(rng.draw(0...count - 1)))
  }

  /// A HELLO the codec accepts.
  static func hello(using rng: inout some RandomNumberGenerator) -> Hello {
    let minVersion: UInt8 = rng.edgy(in: 1...UInt8.max)
    return Hello(
      minVersion: minVersion, maxVersion: rng.edgy(in: minVersion...UInt8.max),
      maxPayload: rng.edgy(in: UInt16(Frame.minimumMaxPayload)...UInt16.max), window: rng.edgy(in: 1...UInt8.max),
      traceActuators: rng.chance(0.5))
  }

  /// A PLAY request.
  static func playRequest(using rng: inout some RandomNumberGenerator) -> PlayRequest {
    PlayRequest(
      token: rng.edgy(), capMs: rng.edgy(), options: PlayOptions(rawValue: UInt8(rng.draw(0...7))),
      source: rng.chance(0.5) ? .slot(rng.edgy()) : .inline(pattern(using: &rng)))
  }

  /// An indicator setting (blink always with non-zero times; other modes with any).
  static func indicatorSetting(using rng: inout some RandomNumberGenerator) -> IndicatorSetting {
    let mode = rng.pick([IndicatorMode.off, .on, .blink])
    if mode == .blink {
      return IndicatorSetting(
        led: rng.edgy(), mode: mode, onMs: rng.edgy(in: 1...UInt16.max), offMs: rng.edgy(in: 1...UInt16.max))
    }
    return IndicatorSetting(led: rng.edgy(), mode: mode, onMs: rng.edgy(), offMs: rng.edgy())
  }

  /// A command of `type`.
  static func command(_ type: MessageType, using rng: inout some RandomNumberGenerator) -> Command {
    switch type {
    case .hello: .hello(hello(using: &rng))
    case .ping: .ping(rng.bytes(count: rng.draw(0...48)))
    case .getInfo: .getInfo
    case .getStatus: .getStatus
    case .play: .play(playRequest(using: &rng))
    case .stop: .stop(token: rng.chance(0.2) ? Command.stopAll : rng.edgy())
    case .lease: .lease(ms: rng.edgy(in: Command.minLeaseMs...Command.maxLeaseMs))
    case .setIndicator: .setIndicator(indicatorSetting(using: &rng))
    case .tableBegin: .tableBegin(TableBegin(size: rng.edgy(), crc: rng.edgy()))
    case .tableData: .tableData(offset: rng.edgy(), bytes: rng.bytes(count: rng.draw(1...64)))
    case .tableCommit: .tableCommit(crc: rng.edgy())
    case .tableAbort: .tableAbort
    case .tableRead:
      .tableRead(TableRead(area: rng.chance(0.5) ? .active : .staged, offset: rng.edgy(), length: rng.edgy()))
    case .reset: .reset
    case .boot, .button, .playEnded, .fault, .actuators: preconditionFailure("\(type) is not a command")
    }
  }

  /// A command of any type.
  static func command(using rng: inout some RandomNumberGenerator) -> Command {
    command(rng.pick(commandTypes), using: &rng)
  }

  /// An actuator state with 0 to 8 motors.
  static func actuatorState(using rng: inout some RandomNumberGenerator) -> ActuatorState {
    ActuatorState(
      buzzerHz: rng.edgy(), buzzerVolume: rng.edgy(), leds: rng.edgy(),
      motors: (0..<rng.draw(0...ActuatorState.maxMotors)).map { _ in rng.edgy() })
  }

  /// INFO with a printable serial of 0 to 32 characters.
  static func boardInfo(using rng: inout some RandomNumberGenerator) -> BoardInfo {
    BoardInfo(
      minVersion: rng.edgy(), maxVersion: rng.edgy(), sessionVersion: rng.edgy(),
      firmware: (major: rng.edgy(), minor: rng.edgy(), patch: rng.edgy()), bootNonce: rng.edgy(),
      serial: (0..<rng.draw(0...BoardInfo.maxSerialLength)).map { _ in UInt8(rng.draw(0x20...0x7E)) },
      capabilities: Capabilities(
        buzzerChannels: rng.edgy(), buzzerMinHz: rng.edgy(), buzzerMaxHz: rng.edgy(), motorChannels: rng.edgy(),
        leds: rng.edgy(), buttons: rng.edgy(), patternSlots: rng.edgy(), maxSteps: rng.edgy(), maxPayload: rng.edgy(),
        window: rng.edgy(), tableCapacity: rng.edgy(), motorMaxOnMs: rng.edgy(), motorDutyWindowMs: rng.edgy(),
        motorMaxDutyPercent: rng.edgy(), leaseMs: rng.edgy()),
      table: TableSummary(version: rng.edgy(), crc: rng.edgy(), size: rng.edgy()))
  }

  /// STATUS in one of its three consistent shapes: nothing plays (token 0, no slot), a slot plays, or an inline
  /// pattern plays (no slot).
  static func boardStatus(using rng: inout some RandomNumberGenerator) -> BoardStatus {
    let shape = rng.draw(0...2)
    let token: UInt32 = shape == 0 ? 0 : rng.edgy(in: 1...UInt32.max)
    var counters = LinkCounters()
    counters.framesOK = rng.edgy()
    counters.crcErrors = rng.edgy()
    counters.framingErrors = rng.edgy()
    counters.overlong = rng.edgy()
    counters.duplicates = rng.edgy()
    counters.faults = rng.edgy()
    return BoardStatus(
      uptimeMs: rng.edgy(), token: token, slot: shape == 1 ? rng.edgy() : nil, inline: shape == 2,
      elapsedMs: rng.edgy(), capRemainingMs: rng.edgy(), leaseRemainingMs: rng.edgy(),
      actuators: actuatorState(using: &rng), indicatorMode: rng.edgy(), transferActive: rng.chance(0.5),
      transferReceived: rng.edgy(), transferSize: rng.edgy(), counters: counters)
  }

  /// The reply kind a command of `type` gets, with random content.
  static func reply(to type: MessageType, using rng: inout some RandomNumberGenerator) -> Reply {
    switch type {
    case .hello, .getInfo: .info(boardInfo(using: &rng))
    case .ping: .pong(rng.bytes(count: rng.draw(0...48)))
    case .getStatus: .status(boardStatus(using: &rng))
    case .play: .playing(capMs: rng.edgy())
    case .stop: .stopped(count: rng.edgy())
    case .lease, .setIndicator, .tableAbort, .reset: .ok
    case .tableBegin: .tableReady(maxChunk: rng.edgy())
    case .tableData: .tableProgress(received: rng.edgy())
    case .tableCommit: .tableCommitted(TableSummary(version: rng.edgy(), crc: rng.edgy(), size: rng.edgy()))
    case .tableRead: .tableBytes(rng.bytes(count: rng.draw(0...64)))
    case .boot, .button, .playEnded, .fault, .actuators: preconditionFailure("\(type) is not a command")
    }
  }

  /// An event of `type`.
  static func event(_ type: MessageType, using rng: inout some RandomNumberGenerator) -> Event {
    switch type {
    case .boot:
      .boot(
        BootEvent(
          reason: rng.pick([.powerOn, .resetCommand, .watchdog, .fault]), table: rng.pick([.ok, .fellBack, .none])))
    case .button: .button(ButtonEvent(button: rng.edgy(), kind: rng.pick([.press, .longPress]), heldMs: rng.edgy()))
    case .playEnded:
      .playEnded(
        PlayEndedEvent(
          token: rng.edgy(), reason: rng.pick([.completed, .stopped, .cap, .lease, .fault, .superseded]),
          playedMs: rng.edgy()))
    case .fault: .fault(FaultEvent(rawCode: rng.edgy(), detail: rng.edgy()))
    default: preconditionFailure("\(type) is not an event")
    }
  }

  /// An event of any type.
  static func event(using rng: inout some RandomNumberGenerator) -> Event {
    event(rng.pick(eventTypes), using: &rng)
  }

  /// A NAK of any code (known or not) for any type byte.
  static func nak(using rng: inout some RandomNumberGenerator) -> Message {
    let code: UInt8 = rng.chance(0.8) ? rng.pick(ErrorCode.allCases).rawValue : rng.edgy()
    return .nak(
      to: rng.chance(0.8) ? rng.pick(commandTypes).rawValue : rng.edgy(), Nak(rawCode: code, detail: rng.edgy()))
  }

  /// The kinds of message, for generators that cover each.
  enum Kind: CaseIterable, Sendable {
    case command, reply, nak, event, eventAck, notification
  }

  /// A message of `kind`.
  static func message(_ kind: Kind, using rng: inout some RandomNumberGenerator) -> Message {
    switch kind {
    case .command: return .command(command(using: &rng))
    case .reply:
      let type = rng.pick(commandTypes)
      return .reply(to: type, reply(to: type, using: &rng))
    case .nak: return nak(using: &rng)
    case .event: return .event(event(using: &rng))
    case .eventAck: return .eventAck(rng.pick(eventTypes))
    case .notification: return .actuators(ActuatorTrace(boardMs: rng.edgy(), state: actuatorState(using: &rng)))
    }
  }

  /// A message of any kind.
  static func message(using rng: inout some RandomNumberGenerator) -> Message {
    message(rng.pick(Kind.allCases), using: &rng)
  }
}

/// A message with the header values of the frame that carries it.
struct FramedMessage: Sendable, CustomStringConvertible {
  var message: Message
  var sequence: UInt16
  var nonce: UInt32

  /// The frame.
  var frame: Frame { message.frame(sequence: sequence, nonce: nonce) }

  var description: String { "seq \(sequence) nonce \(nonce): \(message)" }
}

/// PropertyBased generators over ``Arbitrary``.
enum Generators {
  /// Messages of `kind`.
  static func message(_ kind: Arbitrary.Kind) -> Generator<Message, Shrink.None<Message>> {
    Generator { rng in Arbitrary.message(kind, using: &rng) }
  }

  /// Messages of any kind.
  static let message = Generator<Message, Shrink.None<Message>> { rng in Arbitrary.message(using: &rng) }

  /// Messages with random sequence and nonce.
  static let framedMessage = Generator<FramedMessage, Shrink.None<FramedMessage>> { rng in
    FramedMessage(message: Arbitrary.message(using: &rng), sequence: rng.edgy(), nonce: rng.edgy())
  }

  /// Byte arrays of 0 to `maxCount` bytes, zero-heavy a quarter of the time, sometimes long zero-free runs.
  static func bytes(maxCount: Int) -> Generator<[UInt8], Shrink.None<[UInt8]>> {
    Generator { rng in
      if rng.chance(0.15) {
        // A zero-free run around a COBS block boundary (254), possibly repeated.
        let count = rng.pick([253, 254, 255, 508, 509, 762]) + rng.draw(-1...1)
        return (0..<max(0, min(count, maxCount))).map { _ in UInt8(rng.draw(1...255)) }
      }
      return rng.bytes(count: rng.draw(0...maxCount))
    }
  }

  /// Seeds for deterministic sub-generators (chunkings, garbage).
  static let seed = Generator<UInt64, Shrink.None<UInt64>> { rng in rng.next() }
}
