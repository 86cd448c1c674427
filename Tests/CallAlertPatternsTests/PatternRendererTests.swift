import CallAlertPatterns
import CallAlertProtocol
import Testing

@Suite struct PatternRendererTests {
  @Test func timelinesUnrollLoopsUntilTheCap() {
    let pattern = Pattern(
      steps: [PatternStep(durationMs: 1_000, buzzerHz: 440, buzzerVolume: 255), PatternStep(durationMs: 4_000)],
      repeatCount: Pattern.repeatForever, loopStart: 0)
    let timeline = PatternTimeline(pattern)
    #expect(timeline.lengthMs == 30_000 && timeline.isCut && timeline.naturalLengthMs == nil)
    #expect(timeline.segments.count == 12)
    #expect(
      timeline.segments.last
        == PatternTimeline.Segment(
          startMs: 26_000, durationMs: 4_000, stepIndex: 1, step: PatternStep(durationMs: 4_000)))
  }

  @Test func timelinesStopAtTheNaturalEnd() {
    let pattern = Pattern(
      steps: [PatternStep(durationMs: 100), PatternStep(durationMs: 200, motor: 9), PatternStep(durationMs: 300)],
      repeatCount: 2, loopStart: 1)
    let timeline = PatternTimeline(pattern)
    #expect(timeline.segments.map(\.stepIndex) == [0, 1, 2, 1, 2, 1, 2])
    #expect(timeline.lengthMs == 1_600 && !timeline.isCut)
    #expect(timeline.step(at: 150)?.motor == 9)
    #expect(timeline.step(at: 350)?.motor == 0)
  }

  @Test func theTerminalLineShowsBuzzerAndMotorWithATimeScale() {
    let pattern = Pattern(steps: [
      PatternStep(durationMs: 1_000, buzzerHz: 440, buzzerVolume: 255),
      PatternStep(durationMs: 1_000, buzzerHz: 440, buzzerVolume: 255, motor: 255),
      PatternStep(durationMs: 1_000, motor: 128),
      PatternStep(durationMs: 1_000),
    ])
    #expect(
      PatternRenderer.terminalLine(pattern, columns: 8) == "│▀▀██▄▄  │ 0-4000 ms, 500 ms per column (▀ buzzer, ▄ motor)"
    )
    #expect(
      PatternRenderer.terminalLine(RingCadence.germany.pattern(), columns: 60).hasPrefix(
        "│██        ██        ██        ██        ██        ██        │ 0-30000 ms, cut at the cap, 500 ms per column"))
  }

  @Test func theTerminalLinesShowPitchAndIntensity() {
    let pattern = Pattern(steps: [
      PatternStep(durationMs: 1_000, buzzerHz: 1_000, buzzerVolume: 255),
      PatternStep(durationMs: 1_000, buzzerHz: 500, buzzerVolume: 255, motor: 255),
      PatternStep(durationMs: 2_000, motor: 64),
    ])
    #expect(
      PatternRenderer.terminalLines(pattern, columns: 8) == [
        "buzzer │██▄▄    │ up to 1000 Hz",
        "motor  │  ██▃▃▃▃│ 0-100 %",
        "        └───┴──┘",
        "        0 s  4 s",
      ])
  }

  @Test func theSVGHasAxesLabelsAndStepPlots() throws {
    let definition = try #require(BuiltInPatterns.named("US"))
    let svg = PatternRenderer.svg(definition)
    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\""))
    #expect(svg.hasSuffix("</svg>\n"))
    #expect(svg.contains("<title>US: cadence US (United States)</title>"))
    #expect(svg.contains(">buzzer Hz</text>") && svg.contains(">motor %</text>") && svg.contains(">ms</text>"))
    // A tick every 5 000 ms over the 30 s cap, labelled in ms; Hz gridlines up to 500.
    for time in stride(from: 0, through: 30_000, by: 5_000) { #expect(svg.contains(">\(time)</text>")) }
    #expect(svg.contains(">500</text>") && svg.contains("30000 ms (cut at the 30000 ms cap)"))
    // The buzzer path alternates between the heights of 440 and 480 Hz.
    #expect(svg.contains("V54.4 H") && svg.contains("V44.8 H"))
    #expect(svg == PatternRenderer.svg(definition), "deterministic")
  }

  @Test func theSVGDrawsLEDsAndEscapesTitles() {
    let pattern = Pattern(steps: [PatternStep(durationMs: 500, leds: 0b11), PatternStep(durationMs: 500)])
    let svg = PatternRenderer.svg(pattern, title: "a<b & \"c\"", width: 400)
    #expect(svg.contains("<title>a&lt;b &amp; &quot;c&quot;</title>"))
    #expect(
      svg.contains(
        "<rect x=\"64\" y=\"250\" width=\"156\" height=\"10\" fill=\"#2ca02c\"><title>LED 0,1</title></rect>"))
  }
}
