import CallAlertDaemon
import CallAlertEngine
import CallAlertProtocol
import CallAlertTransport
import CallAlertVirtualBoard
// Full Foundation, not FoundationEssentials: String(format:) with %@.
import Foundation
import Logging
import Synchronization

/// `callalert demo`: the main job on an in-process virtual board, with a short scripted scenario.
///
/// Everything runs on one ``AcceleratedClock``: the engine, the board's firmware core and the link, so
/// `speed` compresses time without bending a single rule. The wall clock starts at 23:00 local time, inside
/// the configured quiet hours (22:00-07:00), whose effect the scenario shows once do-not-disturb follows
/// the schedule.
public struct DemoScenario: Sendable {
  /// One scripted step: at `atMs` (demo time), do `input` (or press the board's button), and say why.
  public struct Step: Sendable {
    /// Demo milliseconds from the start.
    public var atMs: UInt64
    /// What happens, in words.
    public var caption: String
    /// The input, or nil for a button press on the board.
    public var input: EngineInput?
  }

  /// How many times faster than real time.
  public var speed: Double

  /// Creates the demo.
  public init(speed: Double) {
    self.speed = speed
  }

  /// The script: a call rung then hung up; two overlapping calls; a quiet-hours call suppressed, then the
  /// same caller again within 3 minutes breaking through and acknowledged on the button; a call that rings
  /// to its cap; the missed calls acknowledged.
  public static let steps: [Step] = [
    Step(
      atMs: 500, caption: "Alice calls",
      input: .call(IncomingCall(id: "c1", callerNumber: "+14155550101", callerName: "Alice"))),
    Step(atMs: 3_000, caption: "Alice hangs up", input: .hangup(callID: "c1")),
    Step(
      atMs: 4_500, caption: "Bob calls",
      input: .call(IncomingCall(id: "c2", callerNumber: "+14155550102", callerName: "Bob"))),
    Step(
      atMs: 6_000, caption: "Carol calls too, time-sensitive: the board switches to her",
      input: .call(
        IncomingCall(
          id: "c3", callerNumber: "+14155550103", callerName: "Carol", level: .timeSensitive,
          patternHint: "android_pulse"))),
    Step(atMs: 8_500, caption: "Carol hangs up: back to Bob, on his own cap", input: .hangup(callID: "c3")),
    Step(atMs: 10_500, caption: "Bob's call is answered on the phone", input: .answered(callID: "c2")),
    Step(
      atMs: 12_000, caption: "Do-not-disturb follows the schedule: quiet hours 22:00-07:00",
      input: .setDoNotDisturb(.scheduled)),
    Step(
      atMs: 12_500, caption: "Dave calls during quiet hours",
      input: .call(IncomingCall(id: "c4", callerNumber: "+14155550104", callerName: "Dave"))),
    Step(
      atMs: 15_000, caption: "Dave calls again within 3 minutes: a repeated caller breaks through",
      input: .call(IncomingCall(id: "c5", callerNumber: "+14155550104", callerName: "Dave"))),
    Step(atMs: 17_500, caption: "The board's button is pressed: acknowledged", input: nil),
    Step(atMs: 19_000, caption: "Do-not-disturb off; Eve calls and nobody answers", input: .setDoNotDisturb(.off)),
    Step(
      atMs: 19_500, caption: "", input: .call(IncomingCall(id: "c6", callerNumber: "+14155550105", callerName: "Eve"))),
    Step(atMs: 52_000, caption: "The button acknowledges the missed calls", input: nil),
  ]

  /// The demo's configuration: one board, the UK ring by default, quiet hours 22:00-07:00 in UTC.
  public static var configuration: EngineConfiguration {
    let utc = TimeZone(identifier: "UTC") ?? .current
    return EngineConfiguration(
      boards: [AlertBoard(name: "desk")], defaultPattern: .named("UK"),
      doNotDisturb: DoNotDisturbConfiguration(
        mode: .off, schedule: [QuietHoursWindow(startMinute: 22 * 60, endMinute: 7 * 60)], timeZone: utc))
  }

  /// The demo's wall clock starts here: 23:00 UTC, inside the quiet hours.
  public static let wallStart = Date(timeIntervalSince1970: 1_795_302_000)  // 2026-11-21 23:00:00 UTC

  /// Runs the demo, printing events and the board's actuators through `output` (`status` gets the live
  /// actuator line for a terminal, or nil to print alerting transitions as lines); returns the events seen.
  @discardableResult
  public func run(
    output: @escaping @Sendable (String) -> Void, status: (@Sendable (String) -> Void)? = nil
  ) async throws -> [EngineEvent] {
    let clock = AcceleratedClock(speed: speed)
    let origin = clock.now
    let wall: @Sendable () -> Date = {
      DemoScenario.wallStart.addingTimeInterval(Double(origin.duration(to: clock.now).milliseconds) / 1_000)
    }
    let (hostEnd, boardEnd) = MemoryTransport.pair(names: ("host", "virtual board"))
    let board = VirtualBoard()
    let alerting = Mutex(false)
    board.hardware.onChange = { entry in
      if let status { return status(DemoScenario.describe(entry)) }
      // Without a live line, only the moments the board starts or stops alerting are worth a line each.
      let changed = alerting.withLock { was in
        defer { was = entry.state.isAlerting }
        return was != entry.state.isAlerting
      }
      if changed { output(DemoScenario.describe(entry)) }
    }
    let runner = VirtualBoardRunner(board: board, transport: boardEnd, clock: clock)
    var logger = Logger(label: "callalert.demo")
    logger.logLevel = .error
    let service = AlertService(
      configuration: Self.configuration, connectors: ["desk": { hostEnd }], clock: clock, wallClock: wall,
      logger: logger)
    let events = await service.subscribe()
    let boardTask = Task { try await runner.run() }
    let serviceTask = Task { await service.run() }
    let collector = Task {
      var seen: [EngineEvent] = []
      for await published in events {
        seen.append(published.event)
        output(DemoScenario.describe(published.event, ms: await runner.nowMs))
      }
      return seen
    }
    for step in Self.steps {
      try await clock.sleep(until: origin.advanced(by: .milliseconds(step.atMs)), tolerance: nil)
      if !step.caption.isEmpty {
        output(String(format: "%8.3f s  -- %@", Double(await runner.nowMs) / 1_000, step.caption))
      }
      if let input = step.input {
        await service.submit(input)
      } else {
        await runner.setButton(down: true)
        try await clock.sleep(for: .milliseconds(120), tolerance: nil)
        await runner.setButton(down: false)
      }
    }
    try await clock.sleep(for: .milliseconds(500), tolerance: nil)
    serviceTask.cancel()
    await serviceTask.value
    await runner.stop()
    _ = await boardTask.result
    return await collector.value
  }

  static func describe(_ entry: ActuatorTimeline.Entry) -> String {
    let state = entry.state
    let buzzer =
      state.buzzerHz == 0 || state.buzzerVolume == 0
      ? "buzzer off    " : String(format: "buzzer %4d Hz", state.buzzerHz)
    let motor = state.motors.first.map { $0 == 0 ? "motor off" : String(format: "motor %3d", $0) } ?? ""
    let led = state.leds & 1 != 0 ? "LED on" : "LED off"
    return String(format: "%8.3f s  |  board: %@  %@  %@", Double(entry.ms) / 1_000, buzzer, motor, led)
  }

  static func describe(_ event: EngineEvent, ms: UInt64) -> String {
    let time = String(format: "%8.3f s  >> ", Double(ms) / 1_000)
    switch event {
    case .ringing(let call, let boards, let pattern, let capMs, let silent):
      return time
        + "ringing \(call.callerName ?? call.id) on \(boards.joined(separator: ", ")) (\(Self.name(pattern)), up to \(capMs / 1_000) s\(silent ? ", silent" : ""))"
    case .suppressed(let call, let reason): return time + "suppressed \(call.callerName ?? call.id): \(reason.rawValue)"
    case .stopped(let id, let reason): return time + "stopped \(id): \(reason.rawValue)"
    case .missed(let call, let reason):
      return time + "missed \(call.callerName ?? call.id) (\(reason.rawValue)): the indicator blinks"
    case .missedAcknowledged(let count): return time + "\(count) missed call(s) acknowledged"
    case .missedCallAcknowledged(let id): return time + "missed call \(id) acknowledged"
    case .ignored(let id, let reason): return time + "ignored \(id): \(reason.rawValue)"
    case .patternFallback(let id, let board, _, let played, let reason):
      return time + "\(id) plays \(played) on \(board): \(reason)"
    case .callsRefused(let source, let count, _, _):
      return time + "refused \(count) call(s) from \(source): too many calls active"
    case .doNotDisturbEnded(let mode, _):
      return time + "do-not-disturb \(mode.rawValue) ended: as configured again"
    }
  }

  static func name(_ pattern: PatternReference) -> String {
    switch pattern {
    case .slot(let slot): "slot \(slot)"
    case .named(let name): name
    case .inline: "inline pattern"
    }
  }
}

extension Duration {
  /// Whole milliseconds.
  var milliseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
  }
}
