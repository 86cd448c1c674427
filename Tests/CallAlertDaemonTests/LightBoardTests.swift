import CallAlertEngine
import CallAlertLights
import CallAlertProtocol
import CallAlertSimulation
import CallAlertTestSupport
import Clocks
import Logging
import Synchronization
import Testing

@testable import CallAlertDaemon

/// A USB light as a board, driven by the board driver on a test clock: a virtual Kuando receives exactly the
/// reports a real one would, with their virtual times.
@Suite("Light boards", .timeLimit(.minutes(2)))
struct LightBoardTests {
  /// What the driver submitted to the engine.
  final class Inputs: Sendable {
    let items = Mutex<[EngineInput]>([])
  }

  /// A driver and its light on one test clock, with what the driver submitted to the engine.
  final class Rig: Sendable {
    let clock: TestClock<Duration>
    let light: VirtualLight<TestClock<Duration>>
    let driver: BoardDriver<TestClock<Duration>>
    let inputs: Inputs
    let running: Task<Void, Never>

    init(kind: LightKind = .kuando, appearance: LightAppearance) throws {
      let clock = TestClock()
      self.clock = clock
      let light = try VirtualLight(kind: kind, name: "virtual light", clock: clock)
      self.light = light
      let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
      let device = LightBoard(
        name: "lamp", kind: kind, appearance: appearance, patternTable: nil, leaseMs: 3_000, clock: clock,
        logger: logger, connect: { light })
      let inputs = Inputs()
      self.inputs = inputs
      let driver = BoardDriver(
        name: "lamp", device: device, clock: clock, logger: logger,
        submit: { input in inputs.items.withLock { $0.append(input) } })
      self.driver = driver
      running = Task { await driver.run() }
    }

    func submitted(_ match: (EngineInput) -> Bool) -> Bool { inputs.items.withLock { $0.contains(where: match) } }

    /// Reports received after the first `count`.
    func received(after count: Int) -> [VirtualLight<TestClock<Duration>>.Received] {
      Array(light.received.dropFirst(count))
    }

    /// How many reports the light received so far, and the time of the last.
    var mark: (count: Int, ms: UInt64) { (light.received.count, light.received.last?.ms ?? 0) }

    /// Advances virtual time by `duration` in 100 ms steps, letting the loop act on each.
    func pass(_ duration: Duration) async {
      _ = await advance(clock, by: .milliseconds(100), within: duration) { false }
    }
  }

  static let appearance = LightAppearance(
    color: LightColor(red: 0, green: 0, blue: 255), ringtone: .telephoneNordic, volume: 5)

  static func isKeepAlive(_ received: VirtualLight<TestClock<Duration>>.Received) -> Bool {
    received.report.payload.first == 0x83
  }

  /// The gaps between keepalives from `start` until the light went dark stay inside the Kuando's 3 s timeout.
  static func expectKeepalivesInsideTheTimeout(_ reports: [VirtualLight<TestClock<Duration>>.Received], start: UInt64) {
    let offAt = reports.first { $0.meaning == "dark, silent" }?.ms ?? UInt64.max
    let keepalives = reports.filter { isKeepAlive($0) && $0.ms < offAt }.map(\.ms)
    #expect(keepalives.first.map { $0 - start } ?? .max < 3_000, "armed at once")
    for (earlier, later) in zip(keepalives, keepalives.dropFirst()) {
      #expect(later - earlier < 3_000, "a keepalive gap of \(later - earlier) ms")
    }
    #expect(!reports.contains { isKeepAlive($0) && $0.ms > offAt }, "none once dark")
  }

  @Test func aThirtySecondRingOnAVirtualKuandoIsKeptAliveAndEndsDarkAtHangupCapAndExit() async throws {
    let rig = try Rig(appearance: Self.appearance)
    let opened = await advance(rig.clock, within: .seconds(5)) {
      rig.submitted { if case .boardBack = $0 { true } else { false } }
    }
    #expect(opened != nil, "the light opened")
    #expect(rig.light.received.last?.meaning == "dark, silent", "whatever was left lit goes dark at once")

    // Hangup: a ring stopped after 10 s.
    var (count, start) = rig.mark
    rig.driver.enqueue(.play(board: "lamp", token: 1, pattern: .named("UK"), capMs: 30_000, options: []))
    await rig.pass(.seconds(10))
    let ringing = rig.received(after: count)
    #expect(ringing.first?.meaning == "show red 0% green 0% blue 100%, ring telephoneNordic at volume 5")
    rig.driver.enqueue(.stop(board: "lamp", token: 1))
    await rig.pass(.milliseconds(500))
    var reports = rig.received(after: count)
    #expect(reports.last?.meaning == "dark, silent")
    Self.expectKeepalivesInsideTheTimeout(reports, start: start)
    #expect(rig.submitted { $0 == .playEnded(board: "lamp", token: 1, reason: .stopped) })

    // Cap: a ring left to its 30 s cap.
    (count, start) = rig.mark
    rig.driver.enqueue(.play(board: "lamp", token: 2, pattern: .named("UK"), capMs: 30_000, options: []))
    await rig.pass(.seconds(31))
    reports = rig.received(after: count)
    let rang = try #require(reports.first).ms
    let dark = try #require(reports.first { $0.meaning == "dark, silent" })
    #expect(dark.ms - rang >= 30_000 && dark.ms - rang <= 30_200, "dark at the cap, \(dark.ms - rang) ms in")
    #expect(reports.last?.meaning == "dark, silent")
    Self.expectKeepalivesInsideTheTimeout(reports, start: start)
    #expect(rig.submitted { $0 == .playEnded(board: "lamp", token: 2, reason: .cap) })

    // Exit: the daemon stops while a ring plays.
    (count, start) = rig.mark
    rig.driver.enqueue(.play(board: "lamp", token: 3, pattern: .named("UK"), capMs: 30_000, options: []))
    await rig.pass(.seconds(2))
    rig.running.cancel()
    let ended = await finishing(within: 10) { await rig.running.value }
    #expect(ended != nil, "the driver ended")
    reports = rig.received(after: count)
    #expect(reports.last?.meaning == "dark, silent")
    Self.expectKeepalivesInsideTheTimeout(reports, start: start)
  }

  @Test func silentModeVibrateOnlyAndVibrationsRingAsLightAlone() async throws {
    let rig = try Rig(appearance: Self.appearance)
    _ = await advance(rig.clock, within: .seconds(5)) {
      rig.submitted { if case .boardBack = $0 { true } else { false } }
    }
    let count = rig.mark.count
    rig.driver.enqueue(.play(board: "lamp", token: 1, pattern: .named("UK"), capMs: 30_000, options: [.muteBuzzer]))
    await rig.pass(.seconds(1))
    #expect(rig.received(after: count).first?.meaning == "show red 0% green 0% blue 100%, silent")
    // A pattern without buzzer steps (a vibration) rings without a ringtone too.
    let vibration = Pattern(
      steps: [PatternStep(durationMs: 300, motor: 200), PatternStep(durationMs: 300)],
      repeatCount: Pattern.repeatForever)
    let before = rig.mark.count
    rig.driver.enqueue(.play(board: "lamp", token: 2, pattern: .inline(vibration), capMs: 30_000, options: []))
    await rig.pass(.seconds(1))
    #expect(rig.received(after: before).first?.meaning == "show red 0% green 0% blue 100%, silent")
    rig.running.cancel()
    _ = await finishing(within: 10) { await rig.running.value }
  }

  @Test(arguments: [LightKind.luxafor, .embrava, .blink1])
  func aLightWithoutAKuandosTimerIsTurnedOffOnStopAndAtExit(_ kind: LightKind) async throws {
    let rig = try Rig(kind: kind, appearance: Self.appearance)
    _ = await advance(rig.clock, within: .seconds(5)) {
      rig.submitted { if case .boardBack = $0 { true } else { false } }
    }
    rig.driver.enqueue(.play(board: "lamp", token: 1, pattern: .named("UK"), capMs: 30_000, options: []))
    await rig.pass(.seconds(1))
    rig.driver.enqueue(.stop(board: "lamp", token: 1))
    await rig.pass(.milliseconds(200))
    let afterStop = rig.light.received.map(\.meaning)
    #expect(afterStop.suffix(kind == .blink1 ? 2 : 1).first == "off")
    if kind == .blink1 { #expect(afterStop.last == "server tickle off") }
    rig.driver.enqueue(.play(board: "lamp", token: 2, pattern: .named("UK"), capMs: 30_000, options: []))
    await rig.pass(.seconds(1))
    rig.running.cancel()
    _ = await finishing(within: 10) { await rig.running.value }
    let atExit = rig.light.received.map(\.meaning)
    #expect(atExit.suffix(kind == .blink1 ? 2 : 1).first == "off")
  }

  /// A light that takes `limit` reports and then fails as an unplugged one does.
  final class UnpluggingLight: LightDevice {
    let name = "a light that is unplugged"
    private let sent = Mutex(0)
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func send(_ report: LightReport) throws(LightDeviceError) {
      let count = sent.withLock { count in
        count += 1
        return count
      }
      if count > limit { throw LightDeviceError("No such device") }
    }

    func close() {}
  }

  @Test func aLightUnpluggedWhileItRingsIsLostThenReopened() async throws {
    let clock = TestClock()
    let inputs = Inputs()
    let opened = Mutex(0)
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    let device = LightBoard(
      name: "lamp", kind: .luxafor, appearance: Self.appearance, patternTable: nil, clock: clock, logger: logger,
      connect: {
        // The first light fails after its opening off and the ring's first report; the second is fine.
        let first = opened.withLock { count in
          count += 1
          return count == 1
        }
        return UnpluggingLight(limit: first ? 2 : .max)
      })
    let driver = BoardDriver(
      name: "lamp", device: device, clock: clock, logger: logger,
      submit: { input in inputs.items.withLock { $0.append(input) } })
    let running = Task { await driver.run() }
    let submitted = { (match: (EngineInput) -> Bool) in inputs.items.withLock { $0.contains(where: match) } }
    #expect(
      await advance(clock, within: .seconds(5)) { submitted { if case .boardBack = $0 { true } else { false } } } != nil
    )

    driver.enqueue(.play(board: "lamp", token: 1, pattern: .named("UK"), capMs: 30_000, options: []))
    // The driver hands the engine the loss, then the ring's end, one event at a time.
    let lost = await advance(clock, by: .milliseconds(100), within: .seconds(5)) {
      submitted { $0 == .boardLost(board: "lamp") }
        && submitted { $0 == .playEnded(board: "lamp", token: 1, reason: .fault) }
    }
    #expect(lost != nil, "the failed write is taken for an unplug, and the ring ended with it")
    let back = await advance(clock, by: .milliseconds(100), within: .seconds(10)) {
      inputs.items.withLock { $0.filter { if case .boardBack = $0 { true } else { false } }.count } == 2
    }
    #expect(back != nil, "the light is reopened with the reconnect pauses")
    #expect(opened.withLock { $0 } == 2)
    running.cancel()
    _ = await finishing(within: 10) { await running.value }
  }
}
