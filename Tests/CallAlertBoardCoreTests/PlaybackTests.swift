import CallAlertBoardCore
import CallAlertProtocol
import Testing

/// The actuators a step drives on the reference board (one motor, two LEDs), with nothing muted.
func render(_ step: PatternStep) -> ActuatorState {
  let audible = step.buzzerHz != 0 && step.buzzerVolume != 0
  return state(
    hz: audible ? step.buzzerHz : 0, volume: audible ? step.buzzerVolume : 0, leds: step.leds & 0b11,
    motor: step.motor)
}

/// The changes a pattern should make, computed independently of the player: walk the steps, add up the
/// durations, stop at the natural end or the cap.
func expectedChanges(_ pattern: Pattern, start: UInt64, cap: UInt64) -> [Change] {
  var changes = [Change(ms: start, state: render(pattern.steps[0]))]
  func add(_ ms: UInt64, _ state: ActuatorState) {
    if changes.last!.state != state { changes.append(Change(ms: ms, state: state)) }
  }
  var elapsed: UInt64 = 0
  var index = 0
  var passes = 0
  while true {
    elapsed += UInt64(pattern.steps[index].durationMs)
    if elapsed >= cap { break }
    index += 1
    if index == pattern.steps.count {
      guard pattern.repeatCount == Pattern.repeatForever || passes < Int(pattern.repeatCount) else {
        add(start + elapsed, off)
        return changes
      }
      passes += 1
      index = Int(pattern.loopStart)
    }
    add(start + elapsed, render(pattern.steps[index]))
  }
  add(start + cap, off)
  return changes
}

@Suite("Playback")
struct PlaybackTests {
  /// Five steps of odd lengths that all differ, looping over steps 1-4 until the cap.
  static let long = Pattern(
    steps: [
      step(37, hz: 440, volume: 100), step(53, motor: 200), step(11, leds: 0b01),
      step(29, hz: 2_000, volume: 255, leds: 0b10), step(7, motor: 50),
    ], repeatCount: Pattern.repeatForever, loopStart: 1)

  @Test("a 255-repeat pattern hits every step boundary to the millisecond and stops at exactly 30 000")
  func longLoopIsExact() {
    var bench = Bench()
    bench.hello()
    bench.advance(to: 1_000)
    #expect(bench.send(play(9, Self.long, cap: 30_000)) == reply(.play, .playing(capMs: 30_000)))
    bench.advance(to: 40_000, renewingLeaseEvery: 2_000)
    let expected = expectedChanges(Self.long, start: 1_000, cap: 30_000)
    #expect(expected.count > 900)
    #expect(Array(bench.timeline.dropFirst()) == expected)
    #expect(bench.playEnds == [PlayEndedEvent(token: 9, reason: .cap, playedMs: 30_000)])
    #expect(bench.events.last { if case .playEnded = $0.event { true } else { false } }?.ms == 31_000)
  }

  @Test("ticking every millisecond gives the same timeline as sleeping until nextWakeMs")
  func tickingMatchesSleeping() {
    var sleeping = Bench()
    sleeping.hello()
    sleeping.send(play(1, Self.long, cap: 5_000))
    sleeping.advance(to: 6_000, renewingLeaseEvery: 1_000)

    var ticking = Bench()
    ticking.hello()
    ticking.send(play(1, Self.long, cap: 5_000))
    for ms in UInt64(1)...6_000 {
      ticking.now = ms
      ticking.core.tick(nowMs: ms)
      ticking.exchange()
      if ms % 1_000 == 0 { ticking.send(.lease(ms: 3_000)) }
    }
    #expect(ticking.timeline == sleeping.timeline)
    #expect(ticking.playEnds == sleeping.playEnds)
  }

  @Test(
    "the cap is the PLAY's, never above 30 000 ms (0 means 30 000)",
    arguments: [(UInt16(0), UInt64(30_000)), (60_000, 30_000), (30_001, 30_000), (30_000, 30_000), (1_234, 1_234)])
  func cap(requested: UInt16, effective: UInt64) {
    var bench = Bench()
    bench.hello()
    bench.advance(to: 500)
    #expect(bench.send(play(3, tone, cap: requested)) == reply(.play, .playing(capMs: UInt16(effective))))
    bench.advance(to: 500 + effective - 1, renewingLeaseEvery: 2_000)
    #expect(bench.core.playingToken == 3)
    bench.advance(by: 1)
    #expect(bench.core.playingToken == nil)
    #expect(bench.timeline.last == Change(ms: 500 + effective, state: off))
    #expect(bench.playEnds == [PlayEndedEvent(token: 3, reason: .cap, playedMs: UInt32(effective))])
  }

  @Test("a pattern with a finite repeat completes at its natural length")
  func completes() {
    var bench = Bench()
    bench.hello()
    let pattern = Pattern(steps: [step(100, motor: 255), step(30), step(70, leds: 1)], repeatCount: 3, loopStart: 1)
    bench.send(play(4, pattern))
    bench.advance(to: 2_000)
    // First pass 200 ms, then 3 passes over steps 1-2 (100 ms each).
    #expect(bench.playEnds == [PlayEndedEvent(token: 4, reason: .completed, playedMs: 500)])
    #expect(Array(bench.timeline.dropFirst()) == expectedChanges(pattern, start: 0, cap: 30_000))
    #expect(bench.timeline.last == Change(ms: 500, state: off))
  }

  @Test("a pattern whose end falls on the cap completed")
  func completionBeatsCapOnATie() {
    var bench = Bench()
    bench.hello()
    bench.send(play(4, Pattern(steps: [step(250, motor: 1)], repeatCount: 3), cap: 1_000))
    bench.advance(to: 2_000)
    #expect(bench.playEnds == [PlayEndedEvent(token: 4, reason: .completed, playedMs: 1_000)])
  }

  @Test("when the lease lapses, every alert actuator goes off at exactly renewal + lease")
  func leaseLapses() {
    var bench = Bench()
    bench.hello()
    bench.advance(to: 1_000)
    bench.send(play(2, tone))
    bench.advance(to: 3_999)
    #expect(bench.core.playingToken == 2)
    bench.advance(to: 4_000)
    #expect(bench.core.playingToken == nil)
    #expect(bench.timeline.last == Change(ms: 4_000, state: off))
    #expect(bench.core.actuators == off)
    #expect(bench.playEnds == [PlayEndedEvent(token: 2, reason: .lease, playedMs: 3_000)])
  }

  @Test("LEASE renewals keep the alert playing up to its cap")
  func leaseRenewals() {
    var bench = Bench()
    bench.hello()
    bench.send(play(2, cap: 20_000))
    bench.advance(to: 25_000, renewingLeaseEvery: 2_900)
    #expect(bench.playEnds == [PlayEndedEvent(token: 2, reason: .cap, playedMs: 20_000)])
  }

  @Test("LEASE sets the lease's length, reported in INFO")
  func leaseLength() {
    var bench = Bench()
    bench.hello()
    bench.send(play(2, tone))
    bench.advance(to: 100)
    #expect(bench.send(.lease(ms: 500)) == reply(.lease, .ok))
    guard case .reply(_, .info(let info))? = bench.send(.getInfo) else {
      Issue.record("no INFO")
      return
    }
    #expect(info.capabilities.leaseMs == 500)
    bench.advance(to: 700)
    #expect(bench.playEnds == [PlayEndedEvent(token: 2, reason: .lease, playedMs: 600)])
    #expect(bench.timeline.last == Change(ms: 600, state: off))
  }

  @Test("an out-of-range LEASE is refused by the codec and changes nothing")
  func leaseOutOfRange() {
    var bench = Bench()
    bench.hello()
    #expect(bench.send(.lease(ms: 99)) == nak(.lease, .badPayload, 0))
    #expect(bench.send(.lease(ms: 10_001)) == nak(.lease, .badPayload, 0))
    #expect(bench.core.lease.lengthMs == 3_000)
  }

  @Test("the lease is ignored while nothing plays, and PLAY renews it")
  func leaseIdle() {
    var bench = Bench()
    bench.hello()
    bench.advance(to: 20_000)
    #expect(bench.events.count == 1, "only BOOT")
    bench.send(play(1))
    bench.advance(to: 22_999)
    #expect(bench.core.playingToken == 1)
    bench.advance(to: 23_000)
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .lease, playedMs: 3_000)])
  }

  @Test("PLAY with another token supersedes; the same token restarts without an end")
  func supersedeAndRestart() {
    var bench = Bench()
    bench.hello()
    let pattern = Pattern(steps: [step(300, motor: 10), step(300, motor: 20)], repeatCount: Pattern.repeatForever)
    bench.send(play(1, pattern))
    bench.advance(to: 500)
    bench.send(play(2, pattern))
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .superseded, playedMs: 500)])
    #expect(bench.core.actuators == state(motor: 10), "the new play starts at its first step")
    bench.advance(to: 700)
    bench.send(play(2, pattern, cap: 1_000))
    #expect(bench.playEnds.count == 1)
    bench.advance(to: 3_000)
    // No change at 800: the restart at 700 began the first step again.
    #expect(bench.timeline.map(\.ms) == [0, 0, 300, 500, 1_000, 1_300, 1_600, 1_700])
    #expect(bench.playEnds.last == PlayEndedEvent(token: 2, reason: .cap, playedMs: 1_000))
  }

  @Test("STOP ends the named token or everything; an unknown token stops nothing")
  func stop() {
    var bench = Bench()
    bench.hello()
    #expect(bench.send(.stop(token: 1)) == reply(.stop, .stopped(count: 0)), "nothing plays")
    bench.send(play(1))
    bench.advance(to: 250)
    #expect(bench.send(.stop(token: 2)) == reply(.stop, .stopped(count: 0)))
    #expect(bench.core.playingToken == 1)
    #expect(bench.send(.stop(token: 1)) == reply(.stop, .stopped(count: 1)))
    #expect(bench.timeline.last == Change(ms: 250, state: off))
    bench.send(play(3))
    bench.advance(to: 400)
    #expect(bench.send(.stop(token: Command.stopAll)) == reply(.stop, .stopped(count: 1)))
    #expect(
      bench.playEnds == [
        PlayEndedEvent(token: 1, reason: .stopped, playedMs: 250),
        PlayEndedEvent(token: 3, reason: .stopped, playedMs: 150),
      ])
    #expect(bench.send(.stop(token: Command.stopAll)) == reply(.stop, .stopped(count: 0)))
  }

  @Test(
    "options mute their channel and nothing else",
    arguments: [
      (PlayOptions.muteBuzzer, state(leds: 0b10, motor: 255)),
      (.muteMotor, state(hz: 1_000, volume: 200, leds: 0b10)),
      (.muteLeds, state(hz: 1_000, volume: 200, motor: 255)),
      (PlayOptions.defined, off),
    ])
  func mute(options: PlayOptions, expected: ActuatorState) {
    var bench = Bench()
    bench.hello()
    bench.send(play(1, options: options))
    #expect(bench.core.actuators == expected)
  }

  @Test("muting the LEDs leaves the indicator lit")
  func muteKeepsIndicator() {
    var bench = Bench()
    bench.hello()
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .on)))
    bench.send(play(1, options: .muteLeds))
    #expect(bench.core.actuators.leds == 0b01)
  }

  @Test("a PLAY frame received twice acts once; its answer is replayed")
  func duplicatePlay() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1))
    bench.advance(to: 300)
    bench.host.send(command: play(2), now: bench.now)
    let bytes = bench.host.takeOutput()
    bench.core.receive(bytes, nowMs: bench.now)
    bench.hostReceive(bench.core.takeOutput())
    bench.advance(to: 450)
    bench.core.receive(bytes, nowMs: bench.now)
    bench.hostReceive(bench.core.takeOutput())
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .superseded, playedMs: 300)])
    #expect(bench.core.playback?.player.startMs == 300, "the duplicate did not restart the play")
    #expect(
      bench.boardFrames.filter { $0.type == MessageType.play.rawValue && $0.flags.contains(.response) }.count == 3)
    #expect(bench.core.status(nowMs: bench.now).counters.duplicates == 1)
  }

  @Test("commands pipelined in one read are all answered, in order; a duplicate among them acts once")
  func pipelinedInOneChunk() {
    var bench = Bench()
    bench.hello()
    bench.host.send(command: play(1), now: 0)
    bench.host.send(command: play(2), now: 0)
    bench.host.send(command: .stop(token: 1), now: 0)
    let bytes = bench.host.takeOutput()
    bench.core.receive(bytes + bytes, nowMs: 0)
    bench.hostReceive(bench.core.takeOutput())
    bench.exchange()
    #expect(
      bench.answers.dropFirst().map(\.message) == [
        .reply(to: .play, .playing(capMs: 30_000)), .reply(to: .play, .playing(capMs: 30_000)),
        .reply(to: .stop, .stopped(count: 0)),
      ])
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .superseded, playedMs: 0)])
    #expect(bench.core.playingToken == 2)
    #expect(bench.core.status(nowMs: 0).counters.duplicates == 3)
  }

  @Test("a STOP frame received twice stops once")
  func duplicateStop() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1))
    bench.host.send(command: .stop(token: Command.stopAll), now: bench.now)
    let bytes = bench.host.takeOutput()
    bench.core.receive(bytes, nowMs: bench.now)
    bench.send(play(2))  // would be stopped by a second STOP acting
    bench.core.receive(bytes, nowMs: bench.now)
    bench.exchange()
    #expect(bench.core.playingToken == 2)
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .stopped, playedMs: 0)])
  }

  @Test("PLAY refusals: token 0, bad slots, patterns beyond the board's limits")
  func playRefusals() {
    var configuration = Bench.configuration
    configuration.maxSteps = 4
    var bench = Bench(configuration: configuration)
    bench.hello()
    #expect(bench.send(play(0)) == nak(.play, .badToken))
    #expect(
      bench.send(.play(PlayRequest(token: 1, capMs: 0, source: .slot(3)))) == nak(.play, .badSlot, 3), "no table")
    let five = Pattern(steps: Array(repeating: step(10, motor: 1), count: 5))
    #expect(bench.send(play(1, five)) == nak(.play, .badPattern, 12), "step_count at 8 + 4")
    let low = Pattern(steps: [step(10), step(10), step(10, hz: 199, volume: 1)])
    #expect(bench.send(play(1, low)) == nak(.play, .badPattern, 8 + 6 + 2 * 7 + 2))
    let high = Pattern(steps: [step(10, hz: 8_001, volume: 1)])
    #expect(bench.send(play(1, high)) == nak(.play, .badPattern, 16))
    #expect(bench.core.playback == nil)
    #expect(bench.events.count == 1)
    let edges = Pattern(steps: [step(10, hz: 200, volume: 1), step(10, hz: 8_000, volume: 1), step(10, leds: 0xFF)])
    #expect(bench.send(play(1, edges)) == reply(.play, .playing(capMs: 30_000)))
  }

  @Test("a refused PLAY leaves the current play and its lease alone")
  func refusedPlayChangesNothing() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1))
    bench.advance(to: 2_000)
    bench.send(play(0))
    bench.advance(to: 3_000)
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .lease, playedMs: 3_000)])
  }

  @Test("LED bits for LEDs the board lacks are ignored")
  func extraLedBits() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1, Pattern(steps: [step(100, leds: 0xFC)])))
    #expect(bench.core.actuators == off)
    bench.send(play(1, Pattern(steps: [step(100, leds: 0xFF)])))
    #expect(bench.core.actuators.leds == 0b11)
  }

  @Test("a board with three motors drives them all from the step's motor byte")
  func threeMotors() {
    var configuration = Bench.configuration
    configuration.motorChannels = 3
    var bench = Bench(configuration: configuration)
    bench.hello()
    bench.send(play(1, Pattern(steps: [step(100, motor: 77)])))
    #expect(bench.core.actuators.motors == [77, 77, 77])
  }
}
