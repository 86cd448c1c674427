import CallAlertPatterns
import CallAlertProtocol
import Testing

/// Ring and vibrate: every built-in cadence vibrates with its ring, and a pattern's
/// rhythm can be played on the motor alone.
@Suite struct MotorRhythmTests {
  /// Each national cadence runs the motor at full intensity exactly while the buzzer sounds its ring.
  @Test(arguments: RingCadence.allCases)
  func everyCadenceVibratesDuringItsRing(cadence: RingCadence) throws {
    let pattern = try #require(BuiltInPatterns.named(cadence.rawValue)).pattern
    var onMs = 0
    for step in pattern.steps {
      if step.motor != 0 { onMs += Int(step.durationMs) }
      #expect(step.motor == 0 || step.motor == 255)
    }
    let ringMs = cadence.intervalsMs.enumerated().filter { $0.offset % 2 == 0 }.reduce(0) { $0 + $1.element }
    #expect(onMs == ringMs, "the motor runs through the on-periods, gated silences included")
    #expect(pattern.steps.filter { $0.motor == 0 }.allSatisfy { !$0.isAudible })
  }

  /// `motor: 0` in a pattern file keeps a cadence's motor still; without it the cadence vibrates.
  @Test func aPatternFileCadenceVibratesUnlessToldNotTo() throws {
    let file = try PatternFile.parse(
      text: """
        version: 1
        patterns:
          - { name: ring, cadence: DE }
          - { name: quiet, cadence: DE, motor: 0 }
        """, file: "p.yaml")
    #expect(file.pattern(named: "ring")?.pattern.steps.first?.motor == 255)
    #expect(file.pattern(named: "quiet")?.pattern.steps.allSatisfy { $0.motor == 0 } == true)
  }

  /// The UK ring felt: the same rhythm, the motor at full intensity where the buzzer sounded, no sound.
  @Test func theRhythmOfARingIsItsBurstsOnTheMotor() throws {
    let ring = RingCadence.unitedKingdom.pattern(options: RingCadence.Options(motor: 0))
    let felt = try #require(MotorRhythm.of(ring))
    #expect(
      felt.steps == [
        PatternStep(durationMs: 400, motor: 255), PatternStep(durationMs: 200),
        PatternStep(durationMs: 400, motor: 255),
        PatternStep(durationMs: 2_000),
      ])
    #expect(felt.repeatCount == Pattern.repeatForever && felt.loopStart == 0)
  }

  /// A gated tone's flutter (Japan: 31 ms on, 31 ms off) is bridged; the pause between rings is not.
  @Test func shortGapsAreBridgedLongOnesKept() throws {
    let felt = try #require(MotorRhythm.of(RingCadence.japan.pattern()))
    #expect(felt.steps == [PatternStep(durationMs: 1_000, motor: 255), PatternStep(durationMs: 2_000)])
  }

  /// A pattern's own motor intensity and LEDs are kept; the loop start still points at the same step; the
  /// result never has more steps than the pattern.
  @Test func ownIntensityLedsAndLoopAreKept() throws {
    let pattern = Pattern(
      steps: [
        PatternStep(durationMs: 100, buzzerHz: 500, buzzerVolume: 200, leds: 1),
        PatternStep(durationMs: 300, motor: 90),
        PatternStep(durationMs: 500),
        PatternStep(durationMs: 100, buzzerHz: 700, buzzerVolume: 200),
        PatternStep(durationMs: 100, buzzerHz: 800, buzzerVolume: 200),
      ], repeatCount: 3, loopStart: 4)
    let felt = try #require(MotorRhythm.of(pattern))
    #expect(
      felt.steps == [
        PatternStep(durationMs: 100, motor: 255, leds: 1), PatternStep(durationMs: 300, motor: 90),
        PatternStep(durationMs: 500), PatternStep(durationMs: 100, motor: 255),
        PatternStep(durationMs: 100, motor: 255),
      ])
    #expect(felt.loopStart == 4 && felt.repeatCount == 3)
  }

  /// Nothing to feel: no rhythm (the daemon then plays the default ring's).
  @Test func aPatternThatNeitherSoundsNorVibratesHasNoRhythm() {
    #expect(MotorRhythm.of(Pattern(steps: [PatternStep(durationMs: 500, leds: 1)])) == nil)
  }
}

/// Bounded inputs: pattern files over 1 MiB are refused before parsing; an RTTTL tune
/// is read up to a bounded number of notes and problems.
@Suite struct PatternInputLimitTests {
  @Test func aFileOverOneMebibyteIsRefusedBeforeParsing() {
    // Valid YAML all the way, so only the size can refuse it.
    let text = "version: 1\npatterns:\n  - { name: a, cadence: US }\n" + String(repeating: "#", count: 1 << 20)
    let diagnostics = PatternFile.check(text: text, file: "big.yaml")
    #expect(diagnostics.count == 1)
    #expect(
      diagnostics.first?.description.hasPrefix("big.yaml:1:1: error: the file is 1048626 bytes, above the 1 MiB")
        == true, "\(diagnostics)")
    #expect(throws: PatternDiagnostics.self) { try PatternFile.parse(text: text, file: "big.yaml") }
  }

  @Test func aFileOfExactlyTheLimitIsRead() throws {
    let head = "version: 1\npatterns:\n  - { name: a, cadence: US }\n"
    let text = head + String(repeating: "#", count: PatternFile.maximumBytes - head.utf8.count)
    #expect(try PatternFile.parse(text: text, file: "edge.yaml").patterns.count == 1)
  }

  /// A tune with more notes than a pattern can hold stops at the first note beyond the bound.
  @Test func aTuneBeyondTheNoteBoundIsRefusedWhereItExceeds() {
    let notes = Array(repeating: "8c", count: RTTTLTune.maximumNotes + 5).joined(separator: ",")
    let text = "big:d=4,o=5,b=120:" + notes
    #expect(throws: RTTTLError.self) { try RTTTLTune.parse(text) }
    do {
      _ = try RTTTLTune.parse(text)
    } catch {
      #expect(error.problems.count == 1)
      #expect(error.problems[0].offset == 18 + RTTTLTune.maximumNotes * 3)
      #expect(error.problems[0].message.contains("more than \(RTTTLTune.maximumNotes) notes"))
    }
    let fits = "ok:d=4,o=5,b=120:" + Array(repeating: "8c", count: RTTTLTune.maximumNotes).joined(separator: ",")
    #expect((try? RTTTLTune.parse(fits))?.notes.count == RTTTLTune.maximumNotes)
  }

  /// Garbage yields a bounded list of problems, the last saying where reading stopped.
  @Test func problemsAreBounded() {
    let text = "bad:d=4,o=5,b=120:" + Array(repeating: "x", count: 10_000).joined(separator: ",")
    do {
      _ = try RTTTLTune.parse(text)
      Issue.record("garbage parsed")
    } catch {
      #expect(error.problems.count == RTTTLTune.maximumProblems + 1)
      #expect(error.problems.last?.message.hasPrefix("stopped after 100 problems") == true)
    }
  }
}
