import CallAlertPatterns
import CallAlertProtocol
import Testing

@Suite struct RingCadenceTests {
  /// The US ring: 2 000 ms alternating 440 and 480 Hz in 25 ms slices (80 slices), then 4 000 ms silent,
  /// looping until the cap.
  @Test func unitedStatesAlternates440And480For2000MsThenRests4000Ms() {
    let pattern = RingCadence.unitedStates.pattern()
    #expect(pattern.steps.count == 81)
    #expect(pattern.repeatCount == Pattern.repeatForever && pattern.loopStart == 0)
    let on = pattern.steps.prefix(80)
    #expect(on.allSatisfy { $0.durationMs == 25 && $0.buzzerVolume == 255 && $0.motor == 255 })
    #expect(on.map(\.buzzerHz) == Array(repeating: [440, 480] as [UInt16], count: 40).flatMap { $0 })
    #expect(on.reduce(0) { $0 + Int($1.durationMs) } == 2_000)
    #expect(pattern.steps[80] == PatternStep(durationMs: 4_000))
    #expect(pattern.loopDurationMs == 6_000)
  }

  struct Timing: Sendable, CustomTestStringConvertible {
    var cadence: RingCadence
    var intervals: [Int]
    var testDescription: String { cadence.rawValue }
  }

  /// Each cadence's on and off periods, exactly, recovered from the steps.
  @Test(arguments: [
    Timing(cadence: .unitedStates, intervals: [2_000, 4_000]),
    Timing(cadence: .unitedKingdom, intervals: [400, 200, 400, 2_000]),
    Timing(cadence: .germany, intervals: [1_000, 4_000]),
    Timing(cadence: .france, intervals: [1_500, 3_500]),
    Timing(cadence: .japan, intervals: [1_000, 2_000]),
    Timing(cadence: .australia, intervals: [400, 200, 400, 2_000]),
    Timing(cadence: .spain, intervals: [1_500, 3_000]),
    Timing(cadence: .italy, intervals: [1_000, 4_000]),
    Timing(cadence: .india, intervals: [400, 200, 400, 2_000]),
  ])
  func cadenceTimings(_ timing: Timing) {
    // Gated tones (JP, IN) have silent slices inside their on-periods, so recover the periods from the
    // cadence's own slices rather than from silence.
    #expect(timing.cadence.intervalsMs == timing.intervals)
    let pattern = timing.cadence.pattern(options: RingCadence.Options(modulation: .steady))
    var periods: [Int] = []
    var wasOn: Bool? = nil
    for step in pattern.steps {
      if step.isAudible == wasOn {
        periods[periods.count - 1] += Int(step.durationMs)
      } else {
        periods.append(Int(step.durationMs))
      }
      wasOn = step.isAudible
    }
    #expect(periods == timing.intervals)
    #expect(RingCadence(code: timing.cadence.rawValue.lowercased()) == timing.cadence)
  }

  @Test(arguments: [
    (RingCadence.unitedStates, [440, 480] as [UInt16]), (.unitedKingdom, [400, 450]), (.germany, [425]),
    (.france, [440]), (.japan, [400]), (.australia, [400, 450]), (.spain, [425]), (.italy, [425]), (.india, [400]),
  ])
  func frequencies(cadence: RingCadence, hz: [UInt16]) {
    let sounding = Set(cadence.pattern().steps.filter(\.isAudible).map(\.buzzerHz))
    #expect(sounding == Set(hz))
  }

  @Test func theMeanReplacesAlternationWithOneStep() {
    let pattern = RingCadence.unitedStates.pattern(options: RingCadence.Options(dualTone: .mean))
    #expect(
      pattern.steps == [
        PatternStep(durationMs: 2_000, buzzerHz: 460, buzzerVolume: 255, motor: 255), PatternStep(durationMs: 4_000),
      ])
  }

  @Test(arguments: [(20, 100, 20), (25, 80, 25), (30, 67, 20), (1_000, 2, 1_000)])
  func theSliceIsAParameter(slice: Int, slices: Int, lastMs: Int) {
    let on = RingCadence.unitedStates.onPeriod(lengthMs: 2_000, options: RingCadence.Options(sliceMs: slice))
    #expect(on.count == slices)
    #expect(on.last?.ms == lastMs)
    #expect(on.reduce(0) { $0 + $1.ms } == 2_000)
  }

  /// Japan's 400 Hz × 16 Hz: tone and silence alternate every half period (31.25 ms, rounded at the
  /// boundaries), 32 halves per second.
  @Test func japanGatesItsCarrierAtSixteenHertz() {
    let on = RingCadence.japan.onPeriod(lengthMs: 1_000)
    #expect(on.count == 32)
    #expect(on.prefix(4).map(\.ms) == [31, 32, 31, 31])
    #expect(on.prefix(4).map(\.hz) == [400, 0, 400, 0])
    #expect(on.reduce(0) { $0 + $1.ms } == 1_000)
    let steady = RingCadence.japan.onPeriod(lengthMs: 1_000, options: RingCadence.Options(modulation: .steady))
    #expect(steady.map(\.ms) == [1_000] && steady.map(\.hz) == [400])
  }

  @Test func indiaGatesAtTwentyFiveHertz() {
    let on = RingCadence.india.onPeriod(lengthMs: 400)
    #expect(on.count == 20 && on.allSatisfy { $0.ms == 20 })
  }

  @Test func theMotorRunsThroughTheWholeOnPeriodIncludingGatedSilences() {
    let pattern = RingCadence.japan.pattern(options: RingCadence.Options(motor: 200, leds: 0b10))
    let on = pattern.steps.dropLast()
    #expect(on.allSatisfy { $0.motor == 200 && $0.leds == 0b10 })
    #expect(pattern.steps.last == PatternStep(durationMs: 2_000))
  }
}
