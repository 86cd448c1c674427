import CallAlertProtocol
import CallAlertText
import Foundation
import Testing

/// Protocol/vectors/link.json: link behaviours as frames sent and frames expected, in time (the format is in
/// Protocol/vectors/README.md). ``run(_:on:)`` plays one scenario against a board through a ``RawHost``.
enum LinkScenarios {
  /// A malformed scenario file.
  struct FormatError: Error, CustomStringConvertible {
    let description: String
  }

  /// What a board frame must be to match.
  struct Matcher: Sendable, CustomStringConvertible {
    var type: UInt8
    var flags: UInt8
    var sequence: UInt16?
    var payload: [UInt8]?
    var prefix: [UInt8]?
    var suffix: [UInt8]?
    /// Bytes that must sit at given payload offsets.
    var at: [(offset: Int, bytes: [UInt8])] = []
    var decodes = false

    func matches(_ frame: Frame) -> Bool {
      guard frame.type == type, frame.flags.rawValue == flags else { return false }
      if let sequence, frame.sequence != sequence { return false }
      if let payload, frame.payload != payload { return false }
      if let prefix, !frame.payload.starts(with: prefix) { return false }
      if let suffix, !frame.payload.reversed().starts(with: suffix.reversed()) { return false }
      for (offset, bytes) in at where !frame.payload.dropFirst(offset).starts(with: bytes) { return false }
      return true
    }

    var description: String {
      "type 0x\(String(type, radix: 16)) flags \(flags) seq \(sequence.map(String.init) ?? "any")"
        + (payload.map { " payload \(hex($0))" } ?? "") + (prefix.map { " prefix \(hex($0))" } ?? "")
        + (suffix.map { " suffix \(hex($0))" } ?? "")
    }
  }

  /// One step of a scenario.
  enum Step: Sendable {
    case send(Frame, zeroNonce: Bool)
    case expect(Matcher, withinMs: Int)
    /// Waits until `count` frames matching have come after the frame step `fromStep` expected.
    case await(Matcher, count: Int, fromStep: Int, withinMs: Int)
    /// What the run's timing must have been for the scenario to show anything: at most `atMost` frames
    /// matching came between the frames steps `fromStep` and `toStep` expected.
    case premise(Matcher, atMost: Int, fromStep: Int, toStep: Int, because: String)
    /// With `fromStep`, `atMost` counts the allowed frames since the frame that step expected, taken or not.
    case only(forMs: Int, allow: [Matcher], atMost: Int?, fromStep: Int?)
    case silence(forMs: Int)
    case wait(ms: Int)
    case drain
  }

  /// A scenario: its name, the spec section it checks, whether events are acknowledged as they come, its steps.
  struct Scenario: Sendable, CustomStringConvertible {
    let name: String
    let spec: String
    let acknowledgesEvents: Bool
    let steps: [Step]
    var description: String { name }
  }

  static let typeCodes: [String: UInt8] = [
    "HELLO": 0x01, "PING": 0x02, "GET_INFO": 0x03, "GET_STATUS": 0x04, "PLAY": 0x10, "STOP": 0x11, "LEASE": 0x12,
    "SET_INDICATOR": 0x13, "TABLE_BEGIN": 0x20, "TABLE_DATA": 0x21, "TABLE_COMMIT": 0x22, "TABLE_ABORT": 0x23,
    "TABLE_READ": 0x24, "RESET": 0x30, "BOOT": 0x80, "BUTTON": 0x81, "PLAY_ENDED": 0x82, "FAULT": 0x83,
    "ACTUATORS": 0xC0,
  ]

  static let file = URL(fileURLWithPath: QemuFirmware.root + "/Protocol/vectors/link.json")

  /// Every scenario in the file.
  static let all: [Scenario] = {
    do {
      return try load()
    } catch {
      Issue.record("Protocol/vectors/link.json: \(error)")
      return []
    }
  }()

  static func scenario(_ name: String) -> Scenario? { all.first { $0.name == name } }

  static func load() throws -> [Scenario] {
    let document = try JSONParser.parse(Array(try Data(contentsOf: file)))
    guard let scenarios = document["scenarios"]?.elements else { throw FormatError(description: "no scenarios list") }
    return try scenarios.map { entry in
      guard let name = entry["name"]?.string, let spec = entry["spec"]?.string,
        let acknowledges = entry["acknowledge_events"]?.bool, let steps = entry["steps"]?.elements
      else { throw FormatError(description: "a scenario lacks name, spec, acknowledge_events or steps") }
      let parsed = try steps.enumerated().map { index, step in
        do {
          let parsed = try parse(step)
          try checkReferences(of: parsed, at: index, in: steps)
          return parsed
        } catch {
          throw FormatError(description: "\(name) step \(index): \(error)")
        }
      }
      return Scenario(name: name, spec: spec, acknowledgesEvents: acknowledges, steps: parsed)
    }
  }

  /// A step that counts from another step's frame must name an `expect` step before it.
  static func checkReferences(of step: Step, at index: Int, in steps: [JSONValue]) throws {
    let referenced: [Int]
    switch step {
    case .await(_, _, let from, _): referenced = [from]
    case .premise(_, _, let from, let to, _): referenced = [from, to]
    case .only(_, _, _, let from?): referenced = [from]
    default: referenced = []
    }
    for reference in referenced where !(0..<index).contains(reference) || steps[reference]["expect"] == nil {
      throw FormatError(description: "step \(reference) is not an expect step before this one")
    }
  }

  static func parse(_ step: JSONValue) throws -> Step {
    if let send = step["send"], send.members != nil {
      let frame = Frame(
        flags: FrameFlags(rawValue: try integer(send, "flags_byte")), sequence: try integer(send, "sequence"),
        type: try type(send), nonce: 0, payload: try bytes(send["payload_hex"]?.string ?? ""))
      return .send(frame, zeroNonce: send["nonce"]?.string == "zero")
    }
    if let expect = step["expect"], expect.members != nil {
      return .expect(try matcher(expect), withinMs: step["within_ms"]?.integer ?? 2_000)
    }
    if let awaited = step["await"], awaited.members != nil {
      return .await(
        try matcher(awaited), count: try integer(step, "count"), fromStep: try integer(step, "counted_from_step"),
        withinMs: step["within_ms"]?.integer ?? 2_000)
    }
    if let premise = step["premise"], premise.members != nil, let of = premise["of"] {
      guard let between = premise["between_steps"]?.elements, between.count == 2,
        let from = between[0].integer, let to = between[1].integer, from < to
      else { throw FormatError(description: "premise: between_steps is not two steps in order") }
      guard let because = premise["because"]?.string else { throw FormatError(description: "premise: no because") }
      return .premise(
        try matcher(of), atMost: try integer(premise, "at_most"), fromStep: from, toStep: to, because: because)
    }
    if let only = step["only"], only.members != nil {
      let allow = try (only["allow"]?.elements ?? []).map(matcher)
      let from: Int? = only["counted_from_step"] == nil ? nil : try integer(only, "counted_from_step")
      return .only(
        forMs: try integer(only, "for_ms"), allow: allow, atMost: only["at_most"]?.integer, fromStep: from)
    }
    if let silence = step["silence"], silence.members != nil {
      return .silence(forMs: try integer(silence, "for_ms"))
    }
    if let wait = step["wait"], wait.members != nil { return .wait(ms: try integer(wait, "ms")) }
    if step["drain"] != nil { return .drain }
    throw FormatError(description: "unknown step \((step.members ?? []).map(\.key).sorted())")
  }

  static func matcher(_ object: JSONValue) throws -> Matcher {
    var matcher = Matcher(type: try type(object), flags: try integer(object, "flags_byte"))
    if object["sequence"] != nil { matcher.sequence = try integer(object, "sequence") }
    if let payload = object["payload_hex"]?.string { matcher.payload = try bytes(payload) }
    if let prefix = object["payload_prefix_hex"]?.string { matcher.prefix = try bytes(prefix) }
    if let suffix = object["payload_suffix_hex"]?.string { matcher.suffix = try bytes(suffix) }
    for member in object["payload_at"]?.members ?? [] {
      guard let offset = Int(member.key), let value = member.value.string else {
        throw FormatError(description: "payload_at offset \(member.key)")
      }
      matcher.at.append((offset, try bytes(value)))
    }
    matcher.decodes = object["decodes"]?.bool ?? false
    return matcher
  }

  static func type(_ object: JSONValue) throws -> UInt8 {
    guard let name = object["type"]?.string, let code = typeCodes[name] else {
      throw FormatError(description: "unknown type \(object["type"]?.quoted ?? "nil")")
    }
    return code
  }

  static func integer<T: FixedWidthInteger>(_ object: JSONValue, _ key: String) throws -> T {
    guard let value = object[key]?.integer, let exact = T(exactly: value) else {
      throw FormatError(description: "\(key) is not an integer in range")
    }
    return exact
  }

  static func bytes(_ hex: String) throws -> [UInt8] {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { throw FormatError(description: "odd hex length") }
    return try stride(from: 0, to: digits.count, by: 2).map { index in
      guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
        throw FormatError(description: "bad hex at \(index)")
      }
      return byte
    }
  }

  static func hex(_ bytes: [UInt8]) -> String {
    bytes.prefix(24).map { String(format: "%02x", $0) }.joined() + (bytes.count > 24 ? "…(\(bytes.count))" : "")
  }

  static func describe(_ frame: Frame) -> String {
    "type 0x\(String(frame.type, radix: 16)) flags \(frame.flags.rawValue) seq \(frame.sequence) payload \(hex(frame.payload))"
  }

  /// Whether `frame` is an event the host acknowledges by itself in this scenario (steps that watch the line
  /// then ignore it).
  static func isAutoAcknowledged(_ frame: Frame, in scenario: Scenario) -> Bool {
    scenario.acknowledgesEvents && frame.flags.isEmpty && MessageType(rawValue: frame.type)?.isEvent == true
  }

  /// How a run of a scenario on a board in real time ended.
  enum Outcome: Sendable, Equatable {
    /// Every step held.
    case held
    /// A step failed; the message names it and what the line held.
    case failed(String)
    /// A step failed in a run where the board reported that its tick fell behind its clock (FAULT
    /// tick_overrun, PROTOCOL.md §13.8) and the host acknowledges only what the steps say: that FAULT is an
    /// event no step provided for (it takes a sequence number, or a place in a full queue), so the run shows
    /// nothing about the scenario either way. The message is the step's.
    case boardFellBehind(String)
    /// The run's timing was not what the scenario needs to show anything (a `premise` step did not hold: on a
    /// loaded machine the host read or sent late); the message says how.
    case premiseFailed(String)
  }

  /// Plays `scenario` on the board at `slavePath` in real time and says how it ended (the caller records it).
  /// `kind` names the board in the messages.
  static func run(_ scenario: Scenario, kind: BoardKind, slavePath: String) async throws -> Outcome {
    let host = try RawHost(slavePath: slavePath)
    await host.start()
    await host.setAcknowledgesEvents(scenario.acknowledgesEvents)
    defer { Task { await host.close() } }
    let label = "\(kind): link.json/\(scenario.name) (§\(scenario.spec))"
    let played = try await play(scenario, on: host, label: label)
    guard case .failed(let failure) = played else { return played }
    // Where the host acknowledges every event itself, an event the board raised on its own changes nothing
    // the steps look at; where it acknowledges only what the steps say, every event counts.
    if !scenario.acknowledgesEvents, try await boardReportsFallingBehind(host) { return .boardFellBehind(failure) }
    return .failed(failure)
  }

  /// Plays `scenario` over `host`, recording an issue for the first step it fails. Used in virtual time, where
  /// the timing is exact, so a premise that does not hold is a failure too.
  static func run(_ scenario: Scenario, on host: some ScenarioLine, label: String) async throws {
    switch try await play(scenario, on: host, label: label) {
    case .held: break
    case .failed(let why), .premiseFailed(let why), .boardFellBehind(let why): Issue.record(Comment(rawValue: why))
    }
  }

  /// Whether the board on `host`'s line said, in this run, that its tick fell behind its clock (FAULT
  /// tick_overrun, §13.8). After a failed step such a FAULT may still wait in the board's queue, behind an
  /// event nobody acknowledged or a stalled channel: a new HELLO sends the events in flight again and reopens
  /// the channel, and every event is acknowledged as it comes, until the line has been quiet for 300 ms (at
  /// most about 3 s).
  static func boardReportsFallingBehind(_ host: RawHost) async throws -> Bool {
    if await host.sawTickOverrun { return true }
    await host.setAcknowledgesEvents(true)
    // Window 8, no ACTUATORS; a sequence no scenario uses, so that it is a new HELLO.
    let hello = Frame(
      flags: FrameFlags(rawValue: 0), sequence: 0x7F00, type: MessageType.hello.rawValue, nonce: 0,
      payload: [0x01, 0x02, 0x00, 0x04, 0x08, 0x00])
    try await host.send(hello)
    let end = ContinuousClock.now + .seconds(3)
    while ContinuousClock.now < end {
      if await host.sawTickOverrun { return true }
      guard await host.take(within: .milliseconds(300), where: { _ in true }) != nil else { break }
    }
    return await host.sawTickOverrun
  }

  /// Plays `scenario` over `host`: every step held, the first step that failed, described, or a premise that
  /// did not hold (never ``Outcome/boardFellBehind(_:)``: only a real-time run asks the board that).
  static func play(_ scenario: Scenario, on host: some ScenarioLine, label: String) async throws -> Outcome {
    // Where in the order the board sent frames each `expect` step's frame came, by step.
    var places: [Int: Int] = [:]
    for (index, step) in scenario.steps.enumerated() {
      let at = "\(label) step \(index)"
      switch step {
      case .send(var frame, let zeroNonce):
        frame.nonce = zeroNonce ? 0 : await host.nonce()
        try await host.send(frame)
      case .expect(let matcher, let withinMs):
        guard let (frame, place) = await host.take(within: .milliseconds(withinMs), where: { matcher.matches($0) })
        else {
          let seen = await host.pendingFrames().map(describe)
          return .failed("\(at): no frame \(matcher) within \(withinMs) ms; pending: \(seen)")
        }
        places[index] = place
        if matcher.decodes {
          do throws(MessageError) {
            _ = try Message.decode(frame)
          } catch {
            return .failed("\(at): \(describe(frame)) does not decode: \(error)")
          }
        }
      case .await(let matcher, let count, let fromStep, let withinMs):
        let after = places[fromStep] ?? 0
        let arrived = await host.waitUntil(within: .milliseconds(withinMs)) { log in
          log.dropFirst(after + 1).count(where: matcher.matches) >= count
        }
        if !arrived {
          return .failed("\(at): fewer than \(count) frames \(matcher) after step \(fromStep)'s within \(withinMs) ms")
        }
      case .premise(let matcher, let atMost, let fromStep, let toStep, let because):
        let from = places[fromStep] ?? 0
        let to = places[toStep] ?? 0
        let between = await host.received()[(from + 1)..<max(from + 1, to)].count(where: matcher.matches)
        if between > atMost {
          return .premiseFailed(
            "\(at): \(between) frames \(matcher) came between steps \(fromStep) and \(toStep), more than the "
              + "\(atMost) that show \(because)")
        }
      case .only(let forMs, let allow, let atMost, let fromStep):
        try await host.pause(ms: forMs)  // an observation window, not a synchronisation
        let frames = await host.drainFrames().filter { !isAutoAcknowledged($0, in: scenario) }
        for frame in frames {
          guard allow.contains(where: { $0.matches(frame) }) else {
            return .failed("\(at): \(describe(frame)) arrived, only \(allow) may")
          }
        }
        // A count holds however late the board's timers run on a loaded machine, where a window's edge does not;
        // counted in the order the board sent frames, it also holds however late the host reads them.
        let counted =
          if let fromStep {
            await host.received().dropFirst((places[fromStep] ?? 0) + 1).filter { frame in
              !isAutoAcknowledged(frame, in: scenario) && allow.contains { $0.matches(frame) }
            }
          } else {
            frames
          }
        if let atMost, counted.count > atMost {
          return .failed(
            "\(at): \(counted.count) frames arrived, at most \(atMost) may: \(counted.map(describe))")
        }
      case .silence(let forMs):
        try await host.pause(ms: forMs)  // an observation window, not a synchronisation
        let unexpected = await host.drainFrames().filter { !isAutoAcknowledged($0, in: scenario) }
        if !unexpected.isEmpty {
          return .failed("\(at): expected silence for \(forMs) ms, got \(unexpected.map(describe))")
        }
      case .wait(let ms):
        try await host.pause(ms: ms)  // part of the scenario's timing
      case .drain:
        _ = await host.drainFrames()
      }
    }
    return .held
  }
}

/// The host side of a link scenario: a line to a board, in real time (``RawHost``) or in virtual time
/// (``VirtualTimeLine``).
protocol ScenarioLine: Sendable {
  /// The board's nonce as the latest board frame gave it (0 before any).
  func nonce() async -> UInt32
  /// Sends `frame` as is.
  func send(_ frame: Frame) async throws
  /// Takes the first frame received and not yet taken that `matches`, waiting up to `within`; with its place
  /// in the order the board sent frames (0 for the first).
  func take(within: Duration, where matches: @Sendable (Frame) -> Bool) async -> (frame: Frame, place: Int)?
  /// Every frame received so far, taken or not, in the order the board sent them.
  func received() async -> [Frame]
  /// Waits up to `within` for `condition` to hold of ``received()``; whether it does.
  func waitUntil(within: Duration, _ condition: @Sendable ([Frame]) -> Bool) async -> Bool
  /// Takes every frame received and not yet taken.
  func drainFrames() async -> [Frame]
  /// The frames received and not yet taken.
  func pendingFrames() async -> [Frame]
  /// Lets `ms` milliseconds pass.
  func pause(ms: Int) async throws
}

extension RawHost: ScenarioLine {
  func nonce() async -> UInt32 { boardNonce }
  func received() async -> [Frame] { log }
  func drainFrames() async -> [Frame] { drain().map(\.frame) }
  func pendingFrames() async -> [Frame] { pending.map(\.frame) }
  func pause(ms: Int) async throws { try await Task.sleep(for: .milliseconds(ms)) }
}
