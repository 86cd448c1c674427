import CallAlertPatterns
import CallAlertProtocol
import Testing

@Suite struct VibrationWaveformTests {
  @Test func withoutAmplitudesTimingsAlternateOffAndOn() throws {
    let pattern = try #require(VibrationWaveform(timings: [100, 200, 300, 400]).pattern())
    #expect(pattern.steps.map(\.durationMs) == [100, 200, 300, 400])
    #expect(pattern.steps.map(\.motor) == [0, 255, 0, 255])
    #expect(pattern.repeatCount == 0)
  }

  @Test func androidDefaultIsTwoBumps() throws {
    // {0, 250, 250, 250}: the leading 0 ms off is dropped.
    let pattern = try #require(VibrationWaveform.androidDefault.pattern())
    #expect(
      pattern.steps == [
        PatternStep(durationMs: 250, motor: 255), PatternStep(durationMs: 250),
        PatternStep(durationMs: 250, motor: 255),
      ])
    #expect(pattern.repeatCount == 0)
  }

  struct Loop: Sendable, CustomTestStringConvertible {
    var timings: [Int]
    var amplitudes: [Int]?
    var repeatIndex: Int
    var loopStart: UInt16
    var repeatCount: UInt8
    var testDescription: String { "\(timings) repeat \(repeatIndex)" }
  }

  /// The repeat index becomes the wire loop start, counted in steps after zero timings are dropped and
  /// equal neighbours merged.
  @Test(arguments: [
    Loop(timings: [0, 1_000, 1_000], amplitudes: [0, 255, 0], repeatIndex: 1, loopStart: 0, repeatCount: 255),
    Loop(timings: [500, 100, 200], amplitudes: nil, repeatIndex: 1, loopStart: 1, repeatCount: 255),
    Loop(timings: [500, 100, 200], amplitudes: nil, repeatIndex: 2, loopStart: 2, repeatCount: 255),
    Loop(timings: [500, 100, 200], amplitudes: nil, repeatIndex: -1, loopStart: 0, repeatCount: 0),
    Loop(timings: [100, 0, 200, 300], amplitudes: nil, repeatIndex: 1, loopStart: 1, repeatCount: 255),
    Loop(timings: [100, 100, 100], amplitudes: [255, 255, 0], repeatIndex: 1, loopStart: 1, repeatCount: 255),
  ])
  func repeatIndexMapsToLoopStart(_ loop: Loop) throws {
    let waveform = VibrationWaveform(timings: loop.timings, amplitudes: loop.amplitudes, repeatIndex: loop.repeatIndex)
    let pattern = try #require(waveform.pattern())
    #expect(pattern.loopStart == loop.loopStart)
    #expect(pattern.repeatCount == loop.repeatCount)
    #expect(pattern.steps.reduce(0) { $0 + Int($1.durationMs) } == loop.timings.reduce(0, +))
  }

  @Test func androidPulseRepeatsItsRampFromIndexFive() throws {
    let waveform = VibrationWaveform.androidPulse
    #expect(waveform.timings.count == 21 && waveform.amplitudes?.count == 21)
    let pattern = try #require(waveform.pattern())
    // Priming: 12 on, 250 off, 12 on, 500 off (the leading 0 dropped), then 14 ramp steps, 300 + 1 000.
    #expect(pattern.steps.prefix(4).map(\.durationMs) == [12, 250, 12, 500])
    #expect(pattern.loopStart == 4)
    #expect(pattern.steps[4] == PatternStep(durationMs: 100, motor: 77))  // 77, 77 merged
    #expect(pattern.steps.suffix(2).map(\.durationMs) == [350, 1_000])  // 50 + 300 at 255 merged
    #expect(pattern.loopDurationMs == 2_000)
    #expect(pattern.repeatCount == Pattern.repeatForever)
  }

  @Test func defaultAmplitudePlaysAtFullIntensity() throws {
    let pattern = try #require(VibrationWaveform(timings: [10, 20], amplitudes: [-1, 0]).pattern())
    #expect(pattern.steps.map(\.motor) == [255, 0])
  }

  @Test(arguments: [
    (VibrationWaveform(timings: []), "timings is empty"),
    (VibrationWaveform(timings: [0, -5]), "timing 1 is -5 ms"),
    (VibrationWaveform(timings: [1, 2], amplitudes: [0]), "amplitudes has 1 entries but timings has 2"),
    (VibrationWaveform(timings: [1], amplitudes: [300]), "amplitude 0 is 300"),
    (VibrationWaveform(timings: [1, 2], repeatIndex: 2), "repeat 2 is not a timing index; use -1 (no repeat) or 0-1"),
    (VibrationWaveform(timings: [1, 0], repeatIndex: 1), "the loop would be empty"),
    (VibrationWaveform(timings: [0, 0]), "every timing is 0 ms"),
  ])
  func androidWouldRefuse(_ waveform: VibrationWaveform, _ message: String) {
    #expect(waveform.problems().contains { $0.message.contains(message) })
    #expect(waveform.pattern() == nil)
  }
}
