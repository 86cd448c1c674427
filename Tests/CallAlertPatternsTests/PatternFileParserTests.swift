import CallAlertPatterns
import CallAlertProtocol
import Testing

@Suite struct PatternFileParserTests {
  @Test func explicitStepsBecomeOneWireStepEach() throws {
    let file = try parsed(
      """
      version: 7
      patterns:
        - name: office
          repeat: 3
          loop_from: 1
          steps:
            - { ms: 400, hz: 1000, volume: 80%, motor: 100%, led: on }
            - ms: 200
            - { ms: 300, hz: 2000, volume: 17, motor: 64, led: [0, 1] }
      """)
    #expect(file.version == 7 && file.slotCount == 1)
    let office = try #require(file.pattern(named: "office"))
    #expect(office.slot == 0 && office.source == .steps)
    #expect(
      office.pattern
        == Pattern(
          steps: [
            PatternStep(durationMs: 400, buzzerHz: 1_000, buzzerVolume: 204, motor: 255, leds: 1),
            PatternStep(durationMs: 200),
            PatternStep(durationMs: 300, buzzerHz: 2_000, buzzerVolume: 17, motor: 64, leds: 3),
          ],
          repeatCount: 3, loopStart: 1))
    #expect(office.origins.map(\.label) == ["step 0", "step 1", "step 2"])
    #expect(office.origins[0].frequencyLocation == SourceLocation(file: "test.yaml", line: 7, column: 24))
  }

  @Test(arguments: [("50%", 128), ("0%", 0), ("100%", 255), ("100 %", 255), ("255", 255), ("0x10", 16), ("on", 255)])
  func levelsTakeNumbersOrPercentages(text: String, level: UInt8) throws {
    let file = try parsed("version: 1\npatterns:\n  - { name: a, steps: [ { ms: 5, hz: 300, volume: \"\(text)\" } ] }")
    #expect(file.patterns[0].pattern.steps[0].buzzerVolume == level)
  }

  @Test func aSoundingStepDefaultsToFullVolumeAndASilentOneToNone() throws {
    let file = try parsed("version: 1\npatterns:\n  - { name: a, steps: [ { ms: 5, hz: 300 }, { ms: 5 } ] }")
    #expect(file.patterns[0].pattern.steps.map(\.buzzerVolume) == [255, 0])
  }

  @Test func patternsMayBeAMappingFromNames() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        home:
          cadence: de
        work:
          slot: 3
          rtttl: "t:d=4,o=5,b=120:c,e,g"
      """)
    #expect(file.patterns.map(\.name) == ["home", "work"])
    #expect(file.patterns.map(\.slot) == [0, 3])
    #expect(file.slotCount == 4)
    #expect(file.compile().slots.map { $0 == nil } == [false, true, true, false])
  }

  /// Patterns without `slot:` take the lowest free slots in file order, around the explicit ones.
  @Test func slotsAreExplicitOrInOrder() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - { name: a, steps: [ { ms: 1 } ] }
        - { name: b, slot: 0, steps: [ { ms: 1 } ] }
        - { name: c, steps: [ { ms: 1 } ] }
        - { name: d, slot: 5, steps: [ { ms: 1 } ] }
      """)
    #expect(file.patterns.map(\.name) == ["b", "a", "c", "d"])
    #expect(file.patterns.map(\.slot) == [0, 1, 2, 5])
  }

  @Test func slotsCanReserveEmptySlotsAtTheEnd() throws {
    let file = try parsed("version: 1\nslots: 16\npatterns:\n  - { name: a, steps: [ { ms: 1 } ] }")
    #expect(file.compile().slots.count == 16)
  }

  @Test func longStepsAreSplitAndZeroStepsDropped() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - name: long
          loop_from: 1
          repeat: forever
          steps:
            - { ms: 0, hz: 440 }
            - { ms: 140000, motor: 10 }
      """)
    let pattern = file.patterns[0].pattern
    #expect(pattern.steps.map(\.durationMs) == [65_535, 65_535, 8_930])
    #expect(pattern.loopStart == 0 && pattern.repeatCount == Pattern.repeatForever)
    #expect(file.patterns[0].origins.map(\.label) == ["step 1", "step 1", "step 1"])
    #expect(
      descriptions(file.warnings) == [
        "test.yaml:7:15: warning: pattern 'long': step 0: ms 0 lasts no time; the step is left out"
      ])
  }

  @Test func cadenceOptions() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - { name: us, cadence: US, volume: 50%, motor: 255, led: [1], repeat: 2, slice_ms: 40, dual_tone: alternate }
        - { name: mean, cadence: uk, dual_tone: mean }
        - { name: jp, cadence: JP, modulation: steady }
      """)
    let us = file.patterns[0].pattern
    #expect(us.steps.count == 51 && us.repeatCount == 2)
    #expect(us.steps[0] == PatternStep(durationMs: 40, buzzerHz: 440, buzzerVolume: 128, motor: 255, leds: 2))
    #expect(file.patterns[1].pattern.steps.map(\.buzzerHz) == [425, 0, 425, 0])
    #expect(file.patterns[2].pattern.steps.map(\.durationMs) == [1_000, 2_000])
    #expect(file.patterns[0].source == .cadence(.unitedStates))
  }

  @Test func rtttlOptions() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - name: nokia
          rtttl: "Nokia:d=4,o=5,b=225:8e6,8d6,f#,g#,8c#6,8b,d,e,8b,8a,c#,e,2a"
          volume: 70%
          motor: 30%
          gap_percent: 0
          octave_offset: -1
      """)
    let definition = file.patterns[0]
    #expect(definition.source == .rtttl(tuneName: "Nokia"))
    // Without gaps, 13 notes are 13 steps; octave_offset -1 plays e6 as 659 Hz.
    #expect(definition.pattern.steps.count == 13)
    #expect(definition.pattern.steps[0] == PatternStep(durationMs: 133, buzzerHz: 659, buzzerVolume: 179, motor: 77))
    #expect(definition.origins[4].label == "note 4 '8c#6'")
    #expect(definition.origins[4].location == SourceLocation(file: "test.yaml", line: 4, column: 47))
  }

  @Test func vibrationForms() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - { name: pulse, vibration: android_pulse, led: on }
        - name: mine
          repeat: 3
          vibration:
            timings: [0, 400, 200, 400, 1000]
            amplitudes: [0, 255, 0, default, 0]
            repeat: 1
      """)
    #expect(file.patterns[0].source == .vibration(builtIn: "android_pulse"))
    #expect(file.patterns[0].pattern.steps[0] == PatternStep(durationMs: 12, motor: 255, leds: 1))
    let mine = file.patterns[1].pattern
    #expect(
      mine.steps == [
        PatternStep(durationMs: 400, motor: 255), PatternStep(durationMs: 200),
        PatternStep(durationMs: 400, motor: 255),
        PatternStep(durationMs: 1_000),
      ])
    #expect(mine.loopStart == 0 && mine.repeatCount == 3)
    #expect(file.patterns[1].origins.map(\.label) == ["timing 1", "timing 2", "timing 3", "timing 4"])
  }

  struct Failure: Sendable, CustomTestStringConvertible {
    var name: String
    var yaml: String
    var expected: [String]
    var testDescription: String { name }
  }

  /// Every error names file:line:column and what to change; all errors of a file come out together.
  @Test(arguments: [
    Failure(
      name: "bad step values",
      yaml: """
        version: 1
        patterns:
          - name: office
            steps:
              - { ms: 400, hz: 70000, volume: 300 }
              - { hz: 440 }
              - { ms: 2.5, motor: 120%, led: 3 }
              - { ms: 100, hertz: 5 }
        """,
      expected: [
        "f.yaml:5:24: error: pattern 'office': step 0: hz 70000 is out of range; use 0 (silent) or a frequency in Hz",
        "f.yaml:5:39: error: pattern 'office': step 0: volume 300 is out of range; use 0-255 or a percentage such as 80%",
        "f.yaml:6:9: error: pattern 'office': step 1: has no 'ms:'; add its duration, e.g. 'ms: 400'",
        "f.yaml:7:15: error: pattern 'office': step 2: ms '2.5' is not a whole number; use a duration in ms, 1-10000000",
        "f.yaml:7:27: error: pattern 'office': step 2: motor '120%' is not a percentage from 0% to 100%; use 0-255 or a percentage such as 80%",
        "f.yaml:7:38: error: pattern 'office': step 2: led '3' is not understood; use on (LED 0), off, or a list of LED numbers such as [0, 1]; write [3] to light LED 3",
        "f.yaml:8:20: error: pattern 'office': step 3: unknown key 'hertz'; expected 'ms', 'hz', 'volume', 'motor', 'led', 'leds'",
      ]),
    Failure(
      name: "file structure",
      yaml: """
        verison: 1
        patterns:
          - steps: [ { ms: 1 } ]
          - name: a
          - name: b
            cadence: US
            steps: [ { ms: 1 } ]
        """,
      expected: [
        "f.yaml:1:1: error: the file has no 'version:'; add e.g. 'version: 1' (the table version the board reports)",
        "f.yaml:1:1: error: unknown key 'verison' (did you mean 'version'?); expected 'version', 'slots', 'patterns'",
        "f.yaml:3:5: error: pattern 0 has no 'name:'; add e.g. 'name: office' (at most 16 ASCII characters)",
        "f.yaml:4:11: error: pattern 'a': say what it plays with one of 'steps:', 'cadence:', 'rtttl:' or 'vibration:'",
        "f.yaml:7:5: error: pattern 'b': 'steps:' cannot be combined with 'cadence:'; a pattern has one source",
      ]),
    Failure(
      name: "a misspelt source",
      yaml: """
        version: 1
        patterns:
          - name: a
            cadance: UK
        """,
      expected: [
        "f.yaml:4:5: error: pattern 'a': unknown key 'cadance' (did you mean 'cadence'?); say what it plays with one "
          + "of 'steps:', 'cadence:', 'rtttl:' or 'vibration:'"
      ]),
    Failure(
      name: "slots and names",
      yaml: """
        version: 1
        slots: 2
        patterns:
          - { name: a, slot: 2, steps: [ { ms: 1 } ] }
          - { name: b, slot: 2, steps: [ { ms: 1 } ] }
          - { name: "héllo", steps: [ { ms: 1 } ] }
          - { name: abcdefghijklmnopq, slot: 64, steps: [ { ms: 1 } ] }
        """,
      expected: [
        "f.yaml:2:8: error: slots 2 leaves out slot 2; use at least 3 or remove 'slots:'",
        "f.yaml:5:22: error: pattern 'b': slot 2 is already taken by 'a'; choose another or remove 'slot:' to take the next free one",
        "f.yaml:6:13: error: pattern name 'héllo' contains 'é'; names are printable ASCII (the table stores bytes)",
        "f.yaml:7:13: error: pattern name 'abcdefghijklmnopq' is 17 characters; the table stores at most 16",
        "f.yaml:7:38: error: pattern 'abcdefghijklmnopq': slot 64 is out of range; use 0-63",
      ]),
    Failure(
      name: "sources",
      yaml: """
        version: 1
        patterns:
          - { name: a, cadence: XX, slice_ms: 0 }
          - { name: b, cadence: US, dual_tone: both, repeat: 255 }
          - { name: c, vibration: android_buzz }
          - name: d
            vibration: { timings: [0, 100], amplitudes: [0], repeat: 5 }
          - { name: e, rtttl: "x:d=4:c", octave_offset: -5, gap_percent: 90 }
          - { name: f, steps: [ { ms: 1 } ], loop_from: 3, repeat: sometimes }
        """,
      expected: [
        "f.yaml:3:25: error: pattern 'a': unknown cadence 'XX'; use one of US, UK, DE, FR, JP, AU, ES, IT, IN",
        "f.yaml:3:39: error: pattern 'a': slice_ms 0 is out of range; use 1-1000",
        "f.yaml:4:40: error: pattern 'b': dual_tone 'both' is not understood; use 'alternate' or 'mean'",
        "f.yaml:4:54: error: pattern 'b': repeat 255 means 'until the cap' on the wire; write 'repeat: forever' or use 0-254",
        "f.yaml:5:27: error: pattern 'c': unknown vibration 'android_buzz'; use android_default, android_simple, android_pulse, steady_vibration, or a mapping with 'timings:'",
        "f.yaml:7:49: error: pattern 'd': vibration: amplitudes has 1 entries but timings has 2; give one amplitude per timing",
        "f.yaml:7:62: error: pattern 'd': vibration: repeat 5 is not a timing index; use -1 (no repeat) or 0-1",
        "f.yaml:8:49: error: pattern 'e': octave_offset -5 is out of range; use -3 to 3 (-1 when the tune's a5 is 440 Hz)",
        "f.yaml:8:66: error: pattern 'e': gap_percent 90 is out of range; use 0-50",
        "f.yaml:9:49: error: pattern 'f': loop_from 3 is out of range; use a step index 0-0",
        "f.yaml:9:60: error: pattern 'f': repeat 'sometimes' is not a whole number; use a count of extra passes 0-254, or forever",
      ]),
  ])
  func errorsAreLocatedAndCollected(_ failure: Failure) {
    #expect(descriptions(parseErrors(failure.yaml, file: "f.yaml")) == failure.expected)
  }

  /// An error inside an RTTTL string is reported at its own column of the file.
  @Test(arguments: [
    ("rtttl: \"t:d=4,o=5:8c,3d\"", 26, "duration 3 in '3d'"),
    ("rtttl: 't:d=4,o=5:8c,c9'", 27, "octave 9 in 'c9'"),
    ("rtttl: t:d=4,o=5:8c,x", 25, "'x' in 'x' is not a note"),
    ("rtttl: \"t:d=4,o=5:\\x41,8c,q\"", 31, "'q' in 'q' is not a note"),
    ("rtttl: 'It''s:d=4,o=5:8c,c.6.'", 33, "'c.6.' has two dots"),
  ])
  func rtttlErrorsPointIntoTheString(value: String, column: Int, message: String) {
    let yaml = "version: 1\npatterns:\n  - name: tune\n    \(value)\n"
    let errors = parseErrors(yaml)
    #expect(errors.count == 1)
    #expect(errors.first?.location == SourceLocation(file: "test.yaml", line: 4, column: column))
    #expect(errors.first?.message.contains(message) == true)
  }

  @Test func rtttlInABlockScalarIsLocatedToo() {
    let yaml = """
      version: 1
      patterns:
        - name: tune
          rtttl: >-
            t:d=4,o=5,b=100:
            c, d, e,
            8z
      """
    #expect(parseErrors(yaml).map(\.location) == [SourceLocation(file: "test.yaml", line: 7, column: 8)])
  }

  @Test func rtttlWarningsAreCollectedOnSuccess() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - name: simpsons
          rtttl: "The Simpsons:d=4,o=5,b=160:c.6,e6,f#6,8a6,g.6,e6,c6,8a,8f#,8f#,8f#,2g"
      """)
    #expect(
      descriptions(file.warnings) == [
        "test.yaml:4:13: warning: pattern 'simpsons': rtttl: the name 'The Simpsons' has 12 characters; Nokia phones accept at most 10"
      ])
  }

  @Test func duplicateNamesAndEmptyNamesAreWarnings() throws {
    let file = try parsed(
      """
      version: 1
      patterns:
        - { name: a, steps: [ { ms: 1 } ] }
        - { name: a, steps: [ { ms: 2 } ] }
        - { name: "", steps: [ { ms: 3 } ] }
      """)
    #expect(
      descriptions(file.warnings) == [
        "test.yaml:4:13: warning: pattern name 'a' is also used at line 3; lookups by name find the first",
        "test.yaml:5:13: warning: a pattern has an empty name; it can only be chosen by slot",
      ])
    #expect(file.pattern(named: "a")?.slot == 0)
  }

  struct Syntax: Sendable, CustomTestStringConvertible {
    var yaml: String
    var line: Int
    var column: Int
    var message: String
    var testDescription: String { message }
  }

  /// YAML syntax errors keep libYAML's line and column.
  @Test(arguments: [
    Syntax(
      yaml: "version: 1\npatterns:\n  - name: x\n    steps: [ {ms: 5}\n", line: 5, column: 1,
      message:
        "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 4, column 12)"),
    Syntax(
      yaml: "version: 1\npatterns:\n  - name: \"x\n", line: 4, column: 1,
      message: "YAML syntax error: found unexpected end of stream"),
    Syntax(
      yaml: "version: 1\n\tpatterns: []\n", line: 2, column: 1,
      message: "YAML syntax error: found a tab character that violates indentation"),
    Syntax(
      yaml: "version: 1\nversion: 2\npatterns: []\n", line: 1, column: 1,
      message: "duplicate key 'version' in one mapping; each key may appear once"),
    Syntax(yaml: "", line: 1, column: 1, message: "the file is empty; it needs 'version:' and 'patterns:'"),
    Syntax(yaml: "- 1\n- 2\n", line: 1, column: 1, message: "the file must be a mapping of 'version:' and 'patterns:'"),
  ])
  func yamlSyntaxErrors(_ syntax: Syntax) {
    let errors = parseErrors(syntax.yaml)
    #expect(errors.first?.location == SourceLocation(file: "test.yaml", line: syntax.line, column: syntax.column))
    #expect(errors.first?.message.hasPrefix(syntax.message) == true, "\(errors)")
  }

  @Test func anEmptyTableNeedsSlots() throws {
    #expect(try parsed("version: 1\nslots: 4\npatterns: []\n").compile().slots == [nil, nil, nil, nil])
    #expect(
      descriptions(parseErrors("version: 1\npatterns: []\n")) == [
        "test.yaml:2:11: error: 'patterns:' is empty; add a pattern, or 'slots:' for a table of empty slots"
      ])
  }
}
