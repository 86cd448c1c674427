import CallAlertDaemon
import CallAlertEngine
import CallAlertPatterns
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import Foundation
import Logging
import Synchronization
import SystemPackage
import Testing

/// A virtual board on a pseudo-terminal driven by an ``AlertService``, with the service's log lines and
/// events observable as streams: the daemon's board side as a user's board sees it.
final class RingRig: Sendable {
  let board: PseudoTerminalBoard
  let service: AlertService<ContinuousClock>
  /// The service's log lines.
  let logged = CapturedLog(level: .info)
  /// The service's logger, for markers between its lines.
  let logger: Logger
  let events: AsyncStream<EngineEvent>
  private let running: Task<Void, Never>
  private let forwarding: Task<Void, Never>

  init(
    board: PseudoTerminalBoard? = nil, boards: [AlertBoard] = [AlertBoard(name: "desk")],
    defaultPattern: PatternReference = .slot(0), rules: [PatternRule] = [], patternTable: PatternBuild? = nil,
    before inputs: [EngineInput] = []
  ) async throws {
    let board = try board ?? PseudoTerminalBoard()
    self.board = board
    let logger = logged.logger
    self.logger = logger
    let path = board.slavePath
    service = AlertService(
      configuration: EngineConfiguration(boards: boards, patternRules: rules, defaultPattern: defaultPattern),
      connectors: [boards[0].name: { try SerialPort.open(path) }], clock: ContinuousClock(), logger: logger,
      patternTable: patternTable)
    let published = await service.subscribe()
    let (events, eventSink) = AsyncStream.makeStream(of: EngineEvent.self)
    self.events = events
    forwarding = Task {
      for await item in published { eventSink.yield(item.event) }
      eventSink.finish()
    }
    let service = self.service
    // Inputs that must be there before any board connects go in before the service runs, not in a race
    // with the connection.
    for input in inputs { _ = await service.submit(input) }
    running = Task { await service.run() }
  }

  /// Waits for a log line containing `text`; false when the log ended first.
  func waitForLog(_ text: String) async -> Bool { await logged.waitFor(text) }

  /// Waits for an event that `matches`.
  func waitForEvent(_ matches: (EngineEvent) -> Bool) async -> EngineEvent? {
    for await event in events where matches(event) { return event }
    return nil
  }

  /// Rings a call and waits until the board plays; returns the board's ms when it started alerting.
  func ring(_ id: String, after before: UInt64) async -> UInt64 {
    await service.submit(.call(IncomingCall(id: id)))
    _ = await board.waitUntil(playing: true)
    return await board.runner.withBoard { $0.timeline.firstAlert(from: before) } ?? before
  }

  /// Waits until the board's timeline has a change at or after `ms`.
  func waitForChange(atOrAfter ms: UInt64) async {
    if await board.runner.withBoard({ $0.timeline.entries.last.map { $0.ms >= ms } ?? false }) { return }
    for await entry in board.changes where entry.ms >= ms { return }
  }

  var timeline: ActuatorTimeline { get async { await board.runner.withBoard { $0.timeline } } }

  /// Stops the service (the board stays, for another service to connect to).
  func stopService() async {
    running.cancel()
    _ = await running.value
    forwarding.cancel()
  }

  func shutDown() async {
    await stopService()
    await board.stop()
  }
}

/// The default ring and every national cadence vibrate with the buzzer; a vibrate-only
/// board and silent mode play the motor on the ring's rhythm, whatever the pattern. Timings are read on
/// the board's own timeline; they run in real time, so the checks sample the middle of each period.
@Suite("Ring and vibrate", .serialized, .timeLimit(.minutes(1)))
struct RingAndVibrateTests {
  /// The UK double ring (the default ring): 400 on, 200 off, 400 on, 2 000 off, from `start`.
  static func expectDoubleRing(
    _ timeline: ActuatorTimeline, from start: UInt64, buzzer: Bool,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    for (offset, on) in [(150, true), (500, false), (800, true), (1_600, false)] {
      let state = timeline.state(at: start + UInt64(offset))
      #expect(state?.motors == [on ? 255 : 0], "motor at +\(offset) ms", sourceLocation: sourceLocation)
      let sounding = state.map { $0.buzzerHz != 0 && $0.buzzerVolume != 0 } ?? false
      #expect(sounding == (buzzer && on), "buzzer at +\(offset) ms", sourceLocation: sourceLocation)
    }
    if !buzzer {
      #expect(
        timeline.entries.filter { $0.ms >= start }.allSatisfy { $0.state.buzzerHz == 0 || $0.state.buzzerVolume == 0 },
        "the buzzer never sounds", sourceLocation: sourceLocation)
    }
  }

  /// The default ring (slot 0 of a board without a table: the UK ring) runs the motor during its bursts.
  @Test func theDefaultRingVibratesDuringItsBursts() async throws {
    let rig = try await RingRig()
    let start = await rig.ring("c1", after: 0)
    await rig.waitForChange(atOrAfter: start + 1_000)
    Self.expectDoubleRing(await rig.timeline, from: start, buzzer: true)
    await rig.shutDown()
  }

  /// A national cadence (US: 2 s of 440/480 Hz, 4 s silent) runs the motor at full intensity through its
  /// ring, and stops it in the pause.
  @Test func aNationalCadenceVibratesDuringItsRing() async throws {
    let rig = try await RingRig(defaultPattern: .named("US"))
    let start = await rig.ring("c1", after: 0)
    await rig.waitForChange(atOrAfter: start + 2_000)
    let timeline = await rig.timeline
    let ring = timeline.entries.filter { $0.ms >= start && $0.ms < start + 1_900 }
    #expect(ring.count > 10, "the dual tone alternates")
    #expect(ring.allSatisfy { $0.state.motors == [255] && $0.state.buzzerVolume == 255 })
    let pause = try #require(timeline.entries.first { $0.ms >= start && $0.state.motors == [0] })
    #expect(pause.ms >= start + 1_900 && pause.ms <= start + 2_300, "the motor stops with the ring at +2 000 ms")
    #expect(pause.state.buzzerHz == 0)
    await rig.shutDown()
  }

  /// A rule's `buzzer_only` keeps the motor still.
  @Test func aBuzzerOnlyRuleKeepsTheMotorStill() async throws {
    let rig = try await RingRig(defaultPattern: .named("UK"), rules: [PatternRule(buzzerOnly: true)])
    let start = await rig.ring("c1", after: 0)
    await rig.waitForChange(atOrAfter: start + 1_000)
    let timeline = await rig.timeline
    #expect(timeline.state(at: start + 150)?.buzzerVolume == 255)
    #expect(timeline.entries.filter { $0.ms >= start }.allSatisfy { $0.state.motors == [0] })
    await rig.shutDown()
  }

  /// A bed shaker with a named pattern: India's ring (400 Hz gated at 25 Hz) is felt as the double ring,
  /// the motor running through each burst without following the gating.
  @Test func aVibrateOnlyBoardShakesOnANamedPatternsRhythm() async throws {
    let rig = try await RingRig(boards: [AlertBoard(name: "bed", vibrateOnly: true)], defaultPattern: .named("IN"))
    let start = await rig.ring("c1", after: 0)
    await rig.waitForChange(atOrAfter: start + 1_000)
    let timeline = await rig.timeline
    Self.expectDoubleRing(timeline, from: start, buzzer: false)
    let firstBurst = timeline.entries.filter { $0.ms > start && $0.ms < start + 350 }
    #expect(firstBurst.allSatisfy { $0.state.motors == [255] }, "no flutter within a burst")
    await rig.shutDown()
  }

  /// Silent mode plays the default ring on the motor alone.
  @Test func silentModeVibratesTheDefaultRing() async throws {
    let rig = try await RingRig()
    await rig.service.submit(.setSilent(true))
    let start = await rig.ring("c1", after: 0)
    await rig.waitForChange(atOrAfter: start + 1_000)
    Self.expectDoubleRing(await rig.timeline, from: start, buzzer: false)
    // Slot 0's steps are unknown (no table), so the default ring's rhythm plays, and the event says so.
    let fallback = await rig.waitForEvent { if case .patternFallback = $0 { true } else { false } }
    guard case .patternFallback(let id, let board, let requested, let played, _)? = fallback else {
      Issue.record("no pattern_fallback event")
      return
    }
    #expect(id == "c1" && board == "desk" && requested == .slot(0) && played == "UK on the motor")
    await rig.shutDown()
  }

  /// The patterns of ``PatternTableTests``: slot 1 `family` beeps 300 ms at 1 kHz, then 300 ms of silence.
  static let patternFile = """
    version: 7
    patterns:
      - name: office
        cadence: DE
      - name: family
        repeat: forever
        steps:
          - { ms: 300, hz: 1000 }
          - { ms: 300 }
    """

  static func build() throws -> PatternBuild {
    try PatternFile.build(text: patternFile, file: "family.yaml")
  }

  /// A bed shaker with a slot pattern: once the daemon knows the board's table (here: flashed it), slot 1
  /// plays its rhythm on the motor: 300 ms on, 300 ms off.
  @Test func aVibrateOnlyBoardShakesOnASlotPatternsRhythm() async throws {
    let rig = try await RingRig(
      boards: [AlertBoard(name: "bed", vibrateOnly: true)], defaultPattern: .slot(1), patternTable: try Self.build())
    #expect(await rig.waitForLog("pattern table v7: office (slot 0), family (slot 1)"))
    let start = await rig.ring("c1", after: 0)
    await rig.waitForChange(atOrAfter: start + 900)
    let timeline = await rig.timeline
    // +350 and +950 tell it from the default ring's rhythm (on 0-400 and 600-1000).
    for (offset, on) in [(150, true), (350, false), (750, true), (950, false)] {
      #expect(timeline.state(at: start + UInt64(offset))?.motors == [on ? 255 : 0], "motor at +\(offset) ms")
    }
    #expect(timeline.entries.filter { $0.ms >= start }.allSatisfy { $0.state.buzzerHz == 0 })
    await rig.shutDown()
  }
}

/// The daemon learns the board's pattern names and installs the config's pattern file.
@Suite("Pattern names end to end", .serialized, .timeLimit(.minutes(1)))
struct PatternNamesEndToEndTests {
  /// The config's pattern file is flashed to a board that lacks it; a second daemon, without the file,
  /// reads the table on connect and plays `family` from its slot (1 kHz), not the UK fallback.
  @Test func thePatternFileIsFlashedAndItsNamesAreReadBack() async throws {
    let board = try PseudoTerminalBoard()
    // A slave descriptor held open keeps the pseudo-terminal there between the two daemons.
    let keepAlive = try PseudoTerminal.holdOpen(slavePath: board.slavePath)
    defer { try? keepAlive.close() }
    let first = try await RingRig(board: board, patternTable: try RingAndVibrateTests.build())
    #expect(await first.waitForLog("flashed family.yaml"))
    await first.stopService()

    let second = try await RingRig(board: board, defaultPattern: .named("family"))
    #expect(await second.waitForLog("pattern table v7: office (slot 0), family (slot 1)"))
    let start = await second.ring("c1", after: await board.runner.nowMs)
    await second.waitForChange(atOrAfter: start + 300)
    let timeline = await second.timeline
    #expect(timeline.state(at: start + 150)?.buzzerHz == 1_000)
    await second.shutDown()
  }

  /// A board that rings when it connects is flashed after the call ends, not during it: the ring is not
  /// interrupted, and the new table's names are used for the next call.
  @Test func aRingingBoardIsFlashedAfterTheCall() async throws {
    // The call is there before the board connects, so the board rings as soon as it does.
    let rig = try await RingRig(
      defaultPattern: .named("DE"), patternTable: try RingAndVibrateTests.build(),
      before: [.call(IncomingCall(id: "c1"))])
    #expect(await rig.waitForLog("flashing it once the board stops ringing"))
    _ = await rig.board.waitUntil(playing: true)
    let start = await rig.board.runner.withBoard { $0.timeline.firstAlert(from: 0) } ?? 0
    await rig.waitForChange(atOrAfter: start + 1_000)  // DE rings 1 s: it rang whole, nothing flashed meanwhile
    rig.logger.info("TEST: hangup")
    await rig.service.submit(.hangup(callID: "c1"))
    #expect(await rig.waitForLog("pattern table v7: office (slot 0), family (slot 1)"))
    let lines = rig.logged.messages
    let hangup = try #require(lines.firstIndex(of: "TEST: hangup"))
    let flashed = try #require(lines.firstIndex { $0.contains("flashed family.yaml") })
    #expect(flashed > hangup, "flashed only after the call: \(lines)")
    let timeline = await rig.timeline
    #expect(timeline.state(at: start + 500)?.buzzerHz == 425, "the call rang DE meanwhile")
    await rig.shutDown()
  }

  /// A board never flashed has no slot 0, the default: each call rings the default ring at once (no PLAY the
  /// board can only refuse), each call's event says so, and the log says it once, not at every call.
  @Test func aBoardWithoutATableRingsTheDefaultRingAndTheLogSaysSoOnce() async throws {
    let rig = try await RingRig()
    #expect(await rig.waitForLog("no pattern table installed"))
    for (index, id) in ["c1", "c2", "c3"].enumerated() {
      let start = await rig.ring(id, after: await rig.board.runner.nowMs)
      let fallback = await rig.waitForEvent {
        if case .patternFallback(let call, _, _, _, _) = $0 { call == id } else { false }
      }
      guard case .patternFallback(_, _, let requested, let played, let reason)? = fallback else {
        Issue.record("no pattern_fallback event for \(id)")
        return
      }
      #expect(requested == .slot(0) && played == "UK" && reason.contains("the board has no pattern table"), "\(reason)")
      if index == 0 {
        await rig.waitForChange(atOrAfter: start + 1_000)
        RingAndVibrateTests.expectDoubleRing(await rig.timeline, from: start, buzzer: true)
      }
      await rig.service.submit(.hangup(callID: id))
      #expect(await rig.board.waitUntil(playing: false))
      #expect(rig.logged.matching("plays UK instead").count == 1, "call \(index + 1): \(rig.logged.matching("plays"))")
    }
    await rig.shutDown()
  }

  /// A name nothing defines plays the default ring, and the event names it as a fallback.
  @Test func anUnknownNameIsReportedAsAFallback() async throws {
    let rig = try await RingRig(defaultPattern: .named("nosuch"))
    _ = await rig.ring("c1", after: 0)
    let fallback = await rig.waitForEvent { if case .patternFallback = $0 { true } else { false } }
    guard case .patternFallback(_, _, let requested, let played, let reason)? = fallback else {
      Issue.record("no pattern_fallback event")
      return
    }
    #expect(requested == .named("nosuch") && played == "UK" && reason.contains("no pattern named 'nosuch'"))
    await rig.shutDown()
  }
}

/// The board's motor limits hold for a rhythm as for any pattern (in virtual time): the rhythm of a 20 s
/// tone asks for 20 s of motor, and the board cuts it at 15 s for a 1 s rest, then runs it again.
@Suite struct MotorRhythmLimitTests {
  @Test func theBoardRestsTheMotorAfterFifteenSecondsOfRhythm() throws {
    var harness = VirtualLinkHarness(board: VirtualBoard())
    func exchange(_ command: Command) {
      let sequence = harness.send(command)
      harness.run(untilMs: 1_000) { harness in
        harness.deliveries.contains { if case .answer(sequence, _) = $0 { true } else { false } }
      }
    }
    exchange(.hello(Hello(window: 8)))
    exchange(.lease(ms: 3_000))
    let tone = Pattern(steps: [PatternStep(durationMs: 20_000, buzzerHz: 440, buzzerVolume: 255)])
    let felt = try #require(MotorRhythm.of(tone))
    let start = harness.nowMs
    exchange(.play(PlayRequest(token: 1, capMs: 30_000, options: [.muteBuzzer], source: .inline(felt))))
    for _ in 0..<17 {  // the host renews its lease every second
      harness.run(forMs: 1_000)
      exchange(.lease(ms: 3_000))
    }
    let timeline = harness.board.timeline
    let on = try #require(timeline.firstAlert(from: start))
    #expect(timeline.state(at: on + 14_900)?.motors == [255])
    #expect(timeline.state(at: on + 15_500)?.motors == [0], "the board's 15 s limit cut the run")
    #expect(timeline.state(at: on + 16_500)?.motors == [255], "and let it run again after 1 s")
    #expect(timeline.entries.allSatisfy { $0.state.buzzerHz == 0 })
  }
}
