import CallAlertBoardCore
import CallAlertProtocol
import Testing

@Suite("Motor protection")
struct MotorGuardTests {
  @Test("15 000 ms of continuous running forces 1 000 ms of rest with one FAULT; the rest goes on")
  func onTimeLimit() {
    var bench = Bench()
    bench.hello()
    let pattern = Pattern(steps: [step(20_000, motor: 255, leds: 0b10)], repeatCount: Pattern.repeatForever)
    bench.send(play(1, pattern, cap: 30_000))
    bench.advance(to: 31_000, renewingLeaseEvery: 2_000)
    #expect(
      bench.timeline.dropFirst() == [
        Change(ms: 0, state: state(leds: 0b10, motor: 255)),
        Change(ms: 15_000, state: state(leds: 0b10)),
        Change(ms: 16_000, state: state(leds: 0b10, motor: 255)),
        Change(ms: 30_000, state: off),
      ])
    #expect(bench.faults.map(\.event) == [FaultEvent(.motorOnTime, detail: 15_000)])
    #expect(bench.faults.map(\.ms) == [15_000])
    #expect(bench.playEnds.map(\.reason) == [.cap], "resting the motor does not end the play")
  }

  @Test("a motor turned off by the pattern starts a new run")
  func pausesResetTheRun() {
    var bench = Bench()
    bench.hello()
    let pattern = Pattern(steps: [step(14_000, motor: 255), step(1, leds: 1)], repeatCount: Pattern.repeatForever)
    bench.send(play(1, pattern, cap: 30_000))
    bench.advance(to: 30_000, renewingLeaseEvery: 2_000)
    #expect(bench.faults.isEmpty)
  }

  @Test("70 % average duty over 60 s holds the motor off until it falls below, with one FAULT")
  func dutyLimit() {
    var bench = Bench()
    bench.hello()
    // 13 s on, 1 s off: never 15 s in a row, but 93 % duty.
    let pattern = Pattern(
      steps: [step(13_000, motor: 255, leds: 0b10), step(1_000, leds: 0b10)], repeatCount: Pattern.repeatForever)
    bench.send(play(1, pattern))
    bench.advance(to: 31_000, renewingLeaseEvery: 2_000)  // on 0-13, 14-27, 28-30 s: 28 s
    bench.send(play(2, pattern))  // on 31-44 s: 41 s; on again at 45 s: 42 s (70 %) at 46 s
    bench.advance(to: 62_000, renewingLeaseEvery: 2_000)
    let motorChanges = bench.timeline.filter { $0.ms >= 31_000 }.map { ($0.ms, $0.state.motors[0]) }
    #expect(motorChanges.map(\.0) == [31_000, 44_000, 45_000, 46_000, 60_000, 61_000])
    #expect(motorChanges.map(\.1) == [255, 0, 255, 0, 255, 0])
    #expect(bench.core.hardware.state(at: 50_000) == state(leds: 0b10), "the LEDs go on during the hold")
    #expect(bench.faults.map(\.event) == [FaultEvent(.motorDuty, detail: 70)])
    #expect(bench.faults.map(\.ms) == [46_000])
  }

  @Test("the guard's own numbers: threshold, bucket, wake times")
  func guardUnit() {
    var motor = MotorGuard(maxOnMs: 15_000, restMs: 1_000, windowMs: 60_000, maxDutyPercent: 70, nowMs: 0)
    #expect(motor.thresholdMs == 42_000 && motor.bucketMs == 1_000)
    #expect(motor.update(nowMs: 0, requested: true) == .init(running: true, faults: []))
    #expect(motor.nextWakeMs == 15_000)
    #expect(motor.update(nowMs: 15_000, requested: true).faults == [FaultEvent(.motorOnTime, detail: 15_000)])
    #expect(!motor.isRunning)
    #expect(motor.nextWakeMs == 16_000)
    #expect(motor.update(nowMs: 15_500, requested: true) == .init(running: false, faults: []), "still resting")
    #expect(motor.update(nowMs: 16_000, requested: true) == .init(running: true, faults: []))
    // 15 s + 15 s + 12 s on reaches 42 s; the second run is rested at 31 s.
    #expect(motor.update(nowMs: 31_000, requested: true).faults.map(\.code) == [.motorOnTime])
    #expect(motor.update(nowMs: 32_000, requested: true).running)
    #expect(motor.nextWakeMs == 44_000)
    #expect(motor.update(nowMs: 44_000, requested: true).faults == [FaultEvent(.motorDuty, detail: 70)])
    #expect(motor.isDutyHeld && motor.windowOnMs == 42_000)
    #expect(motor.nextWakeMs == 45_000, "the sum can only fall at a bucket boundary")
    #expect(motor.update(nowMs: 59_999, requested: true) == .init(running: false, faults: []))
    #expect(motor.update(nowMs: 60_000, requested: true) == .init(running: true, faults: []))
    #expect(motor.windowOnMs == 41_000)
  }

  @Test("a long idle period empties the window in one step")
  func idleEmptiesWindow() {
    var motor = MotorGuard(maxOnMs: 15_000, restMs: 1_000, windowMs: 60_000, maxDutyPercent: 70, nowMs: 0)
    _ = motor.update(nowMs: 0, requested: true)
    _ = motor.update(nowMs: 10_000, requested: false)
    #expect(motor.windowOnMs == 10_000)
    _ = motor.update(nowMs: 10_000_000, requested: false)
    #expect(motor.windowOnMs == 0)
  }
}
