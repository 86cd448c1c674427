import CallAlertPatterns
import CallAlertProtocol
import Testing

@Suite struct PatternValidatorTests {
  @Test func theReferenceBoardIsTheDefault() {
    let board = Capabilities.referenceBoard
    #expect(board.buzzerMinHz == 200 && board.buzzerMaxHz == 8_000)
    #expect(board.motorChannels == 1 && board.leds == 2 && board.patternSlots == 16)
    #expect(board.maxSteps == 512 && board.tableCapacity == 31_744)
    #expect(board.motorMaxOnMs == 15_000 && board.motorMaxDutyPercent == 70 && board.motorDutyWindowMs == 60_000)
  }

  @Test func frequenciesOutOfRangeNameTheStepAndTheFix() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - name: office
          steps:
            - { ms: 100, hz: 440 }
            - { ms: 100, hz: 150 }
            - { ms: 100 }
            - { ms: 100, hz: 9500 }
        - name: low
          rtttl: "t:d=4,o=4,b=120:c,a"
          octave_offset: -1
        - name: hi
          rtttl: "t:d=4,o=7,b=120:b"
          octave_offset: 3
      """, file: "rings.yaml")
    #expect(
      descriptions(file.validate()) == [
        "rings.yaml:6:24: error: pattern 'office': step 1: hz 150 is below the board's 200 Hz minimum; use 200-8000 or 0 for silence",
        "rings.yaml:8:24: error: pattern 'office': step 3: hz 9500 is above the board's 8000 Hz maximum; use 200-8000 or 0 for silence",
        "rings.yaml:10:29: error: pattern 'low': note 0 'c': 131 Hz is below the board's 200 Hz minimum; raise the note or 'octave_offset:'",
        "rings.yaml:13:29: error: pattern 'hi': note 0 'b': 31609 Hz is above the board's 8000 Hz maximum; lower the note or 'octave_offset:'",
      ])
  }

  @Test func theMotorsContinuousRunIsAnError() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - name: long
          steps:
            - { ms: 10000, motor: 255 }
            - { ms: 5000, motor: 100 }
            - { ms: 15000 }
        - name: looped
          repeat: forever
          loop_from: 1
          steps:
            - { ms: 100 }
            - { ms: 8000, motor: 50% }
        - name: fine
          repeat: forever
          steps:
            - { ms: 14999, motor: 50% }
            - { ms: 1 }
      """)
    // 'long' runs exactly the limit (the board's test is >=); 'looped' runs across its loop passes from
    // 100 ms to the cap; 'fine' stops 1 ms short each time, but averages 99 %.
    #expect(
      descriptions(file.validate()) == [
        "test.yaml:5:29: error: pattern 'long': the motor runs 15000 ms without a break from step 0; the board stops the motor at 15000 ms for a 1000 ms rest; keep every run shorter than 15000 ms with pauses",
        "test.yaml:8:11: warning: pattern 'looped': the motor is on 100 % of each loop, above the board's 70 % average over 60000 ms; back-to-back alerts will make the board hold the motor off; lengthen the pauses",
        "test.yaml:13:28: error: pattern 'looped': the motor runs 29900 ms without a break from step 1; the board stops the motor at 15000 ms for a 1000 ms rest; keep every run shorter than 15000 ms with pauses",
        "test.yaml:14:11: warning: pattern 'fine': the motor is on 99 % of each loop, above the board's 70 % average over 60000 ms; back-to-back alerts will make the board hold the motor off; lengthen the pauses",
      ])
  }

  /// Within one 30 s alert the reference board's duty limit (42 000 ms in 60 000 ms) cannot be reached;
  /// a board with a shorter window can. The window slides: 50 % over 30 s is 15 s, but never 14 s in 20 s.
  @Test func dutyReachedWithinOneAlertIsAnError() throws {
    var board = Capabilities.referenceBoard
    board.motorDutyWindowMs = 20_000
    let file = try parsed(
      """
      version: 1
      patterns:
        - { name: buzz, repeat: forever, steps: [ { ms: 1000, motor: 255 }, { ms: 200 } ] }
        - { name: half, repeat: forever, steps: [ { ms: 1000, motor: 255 }, { ms: 1000 } ] }
      """)
    #expect(
      descriptions(file.validate(against: board)) == [
        "test.yaml:3:13: error: pattern 'buzz': the motor runs 16800 ms within 20000 ms of one alert, reaching the board's limit of 70 % of 20000 ms; the board will hold it off mid-alert; add pauses"
      ])
    #expect(
      descriptions(file.validate()) == [
        "test.yaml:3:13: warning: pattern 'buzz': the motor is on 83 % of each loop, above the board's 70 % average over 60000 ms; back-to-back alerts will make the board hold the motor off; lengthen the pauses"
      ])
  }

  @Test func patternsLongerThanTheCapAreWarned() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - { name: long, repeat: 9, steps: [ { ms: 4000, hz: 440 }, { ms: 1000 } ] }
        - { name: ring, cadence: US }
      """)
    #expect(
      descriptions(file.validate()) == [
        "test.yaml:3:13: warning: pattern 'long': it lasts 50000 ms but the board ends every alert at 30000 ms, so the last 20000 ms never play; shorten it or lower 'repeat:'"
      ])
  }

  @Test func boardLimitsOnSlotsStepsAndSize() throws {
    var board = Capabilities.referenceBoard
    board.patternSlots = 2
    board.maxSteps = 40
    board.tableCapacity = 600
    board.leds = 1
    let file = try parsed(
      """
      version: 1
      patterns:
        - { name: us, cadence: US }
        - { name: uk, cadence: UK, led: [0, 1] }
        - { name: third, slot: 5, steps: [ { ms: 5 } ] }
      """)
    #expect(
      descriptions(file.validate(against: board)) == [
        "test.yaml:2:1: error: the table is 994 bytes, above the board's capacity of 600 bytes; remove or shorten patterns; the largest is 'us' (573 bytes)",
        "test.yaml:3:13: error: pattern 'us': it compiles to 81 steps but the board plays at most 40; raise 'slice_ms:' or use 'dual_tone: mean'",
        "test.yaml:4:35: warning: pattern 'uk': cadence UK: LED 1 does not exist on this board, which has 1 (0-0); the board ignores it",
        "test.yaml:5:26: error: pattern 'third': slot 5 is beyond the board's 2 slots; use 0-1",
      ])
  }

  @Test func boardsWithoutABuzzerOrMotorWarn() throws {
    var board = Capabilities.referenceBoard
    board.buzzerChannels = 0
    board.motorChannels = 0
    let file = try parsed("version: 1\npatterns:\n  - { name: a, cadence: DE, motor: 1 }\n")
    #expect(
      descriptions(file.validate(against: board)) == [
        "test.yaml:3:13: warning: pattern 'a': the board has no buzzer, so its tones will not sound",
        "test.yaml:3:13: warning: pattern 'a': the board has no vibration motor, so the motor part will not run",
      ])
  }

  @Test func checkReportsParseErrorsAndBoardErrorsOfThePatternsThatBuilt() {
    let diagnostics = PatternFile.check(
      text: """
        version: 1
        patterns:
          - { name: ok, steps: [ { ms: 10, hz: 9000 } ] }
          - { name: bad, steps: [ { ms: -1 } ] }
        """, file: "c.yaml")
    #expect(
      descriptions(diagnostics) == [
        "c.yaml:3:40: error: pattern 'ok': step 0: hz 9000 is above the board's 8000 Hz maximum; use 200-8000 or 0 for silence",
        "c.yaml:4:33: error: pattern 'bad': step 0: ms -1 is out of range; use a duration in ms, 1-10000000",
      ])
  }

  @Test func buildThrowsBoardErrorsAndKeepsWarnings() throws {
    let text = "version: 1\npatterns:\n  - { name: a, steps: [ { ms: 10, hz: 9000 } ] }\n"
    #expect(throws: PatternDiagnostics.self) { try PatternFile.build(text: text, file: "b.yaml") }
    let built = try PatternFile.build(
      text: "version: 1\npatterns:\n  - { name: a, steps: [ { ms: 10, hz: 900 } ] }\n", file: "b.yaml")
    #expect(built.bytes == built.table.encoded())
    #expect(built.warnings.isEmpty)
  }

  @Test func diagnosticsPrintLikeACompiler() {
    let diagnostic = Diagnostic.error(at: SourceLocation(file: "rings.yaml", line: 12, column: 7), "pattern 'x': boom")
    #expect(diagnostic.description == "rings.yaml:12:7: error: pattern 'x': boom")
    let error = PatternDiagnostics([
      diagnostic, .warning(at: SourceLocation(file: "rings.yaml", line: 1, column: 1), "w"),
    ])
    #expect(
      error.description == "rings.yaml:1:1: warning: w\nrings.yaml:12:7: error: pattern 'x': boom\n1 error, 1 warning")
  }
}
