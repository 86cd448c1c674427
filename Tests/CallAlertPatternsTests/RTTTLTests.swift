import CallAlertPatterns
import CallAlertProtocol
import Testing

@Suite struct RTTTLTests {
  struct Settings: Sendable, CustomTestStringConvertible {
    var text: String
    var duration: Int
    var octave: Int
    var tempo: Int
    var testDescription: String { text }
  }

  /// Each setting left out falls back on its own default: d=4, o=6, b=63.
  @Test(arguments: [
    Settings(text: "t::c", duration: 4, octave: 6, tempo: 63),
    Settings(text: "t:b=120:c", duration: 4, octave: 6, tempo: 120),
    Settings(text: "t:o=5:c", duration: 4, octave: 5, tempo: 63),
    Settings(text: "t:d=8:c", duration: 8, octave: 6, tempo: 63),
    Settings(text: "t:d=8,b=100:c", duration: 8, octave: 6, tempo: 100),
    Settings(text: "t:b=100,d=16,o=7:c", duration: 16, octave: 7, tempo: 100),
    Settings(text: "t:d8,o5,b100:c", duration: 8, octave: 5, tempo: 100),
    Settings(text: " t : d = 2 , o = 4 , b = 90 : c", duration: 2, octave: 4, tempo: 90),
  ])
  func defaults(_ settings: Settings) throws {
    let tune = try RTTTLTune.parse(settings.text)
    #expect(tune.defaultDuration == settings.duration)
    #expect(tune.defaultOctave == settings.octave)
    #expect(tune.beatsPerMinute == settings.tempo)
    let note = try #require(tune.notes.first)
    #expect(
      note.duration == settings.duration && note.octave == settings.octave && note.beatsPerMinute == settings.tempo)
  }

  @Test func noteDurationIsFourMinutesOverTempoTimesDivider() throws {
    // 60 000 × 4 / (63 × 4) = 952.38 ms for the defaults.
    let tune = try RTTTLTune.parse("t::c")
    #expect(tune.schedule(gapPercent: 0).map(\.durationMs) == [952])
    #expect(tune.notes[0].hz() == 1047)  // C6
  }

  struct Note: Sendable, CustomTestStringConvertible {
    var text: String
    var hz: UInt16?
    var ms: Int
    var testDescription: String { text }
  }

  /// At b=60 a quarter note lasts 1 000 ms; the dot may stand before or after the octave.
  @Test(arguments: [
    Note(text: "c", hz: 523, ms: 1_000),
    Note(text: "c6", hz: 1_047, ms: 1_000),
    Note(text: "c.6", hz: 1_047, ms: 1_500),
    Note(text: "c6.", hz: 1_047, ms: 1_500),
    Note(text: "c.", hz: 523, ms: 1_500),
    Note(text: "8c#6", hz: 1_109, ms: 500),
    Note(text: "8C#6", hz: 1_109, ms: 500),
    Note(text: "2f#", hz: 740, ms: 2_000),
    Note(text: "a4", hz: 440, ms: 1_000),
    Note(text: "h", hz: 988, ms: 1_000),
    Note(text: "b", hz: 988, ms: 1_000),
    Note(text: "1a7", hz: 3_520, ms: 4_000),
    Note(text: "32g#4", hz: 415, ms: 125),
    Note(text: "32g#.4", hz: 415, ms: 188),
    Note(text: "p", hz: nil, ms: 1_000),
    Note(text: "8p", hz: nil, ms: 500),
    Note(text: "8p.", hz: nil, ms: 750),
  ])
  func notes(_ expected: Note) throws {
    let tune = try RTTTLTune.parse("t:d=4,o=5,b=60:\(expected.text)")
    let note = try #require(tune.notes.first)
    #expect(note.hz() == expected.hz)
    #expect(note.isPause == (expected.hz == nil))
    #expect(tune.schedule(gapPercent: 0).map(\.durationMs) == [expected.ms])
  }

  @Test func whitespaceMayStandBetweenAnyTokens() throws {
    let tight = try RTTTLTune.parse("Nokia:d=4,o=5,b=225:8e6,8d6,f#,g#")
    let loose = try RTTTLTune.parse("Nokia :\n d = 4 ,o= 5, b =225 :\n  8e6 , 8 d 6,\tf# ,\n g#  ")
    #expect(loose.notes.map(\.semitone) == tight.notes.map(\.semitone))
    #expect(loose.notes.map(\.octave) == tight.notes.map(\.octave))
    #expect(loose.notes.map(\.duration) == tight.notes.map(\.duration))
    #expect(loose.name == "Nokia")
  }

  @Test func theNameKeepsInnerSpaces() throws {
    #expect(try RTTTLTune.parse("  The Simpsons :d=4:c").name == "The Simpsons")
  }

  /// RTTTL octave 4 is scientific octave 4 (A4 = 440 Hz) by default; offset -1 reads strings written
  /// with Nokia Smart Messaging's numbering, where A5 is 440 Hz.
  @Test(arguments: [(0, "a4", 440.0), (0, "a5", 880), (-1, "a5", 440), (-1, "a4", 220), (1, "a4", 880)])
  func octaveConventions(offset: Int, note: String, hz: Double) throws {
    let tune = try RTTTLTune.parse("t::\(note)")
    let frequency = try #require(tune.notes[0].frequency(octaveOffset: offset))
    #expect(abs(frequency - hz) < 0.001)
  }

  struct Failure: Sendable, CustomTestStringConvertible {
    var text: String
    var offset: Int
    var message: String
    var testDescription: String { text }
  }

  /// Each error names the offset of the offending character, counted from the string's start.
  @Test(arguments: [
    Failure(text: "t:d=4,o=5:3c", offset: 10, message: "duration 3 in '3c' is not an RTTTL duration"),
    Failure(text: "t::c8", offset: 4, message: "octave 8 in 'c8' is out of range; RTTTL octaves are 4 to 7"),
    Failure(text: "t::c3", offset: 4, message: "octave 3 in 'c3' is out of range"),
    Failure(text: "t::8c,x", offset: 6, message: "'x' in 'x' is not a note"),
    Failure(text: "t::c.6.", offset: 6, message: "'c.6.' has two dots"),
    Failure(text: "t:o=9:c", offset: 4, message: "o=9 is out of range"),
    Failure(text: "t:d=3:c", offset: 4, message: "d=3 is not an RTTTL duration"),
    Failure(text: "t:b=0:c", offset: 4, message: "b=0 is out of range"),
    Failure(text: "t:d=:c", offset: 4, message: "setting 'd' has no value"),
    Failure(text: "t:d=4", offset: 1, message: "expected a second ':'"),
    Failure(text: "no colon", offset: 0, message: "expected 'name:settings:notes'"),
    Failure(text: "t::p#", offset: 4, message: "a pause cannot be sharp"),
    Failure(text: "t::c#6x", offset: 6, message: "unexpected 'x' in note 'c#6x'"),
    Failure(text: "t::8", offset: 3, message: "'8' has a duration but no note"),
    Failure(text: "t::", offset: 2, message: "the tune has no notes"),
  ])
  func errorsNameTheirOffset(_ failure: Failure) {
    #expect {
      try RTTTLTune.parse(failure.text)
    } throws: { error in
      guard let problem = (error as? RTTTLError)?.problems.first(where: \.isError) else { return false }
      return problem.offset == failure.offset && problem.message.contains(failure.message)
    }
  }

  @Test func everyErrorIsCollected() {
    let error = #expect(throws: RTTTLError.self) { try RTTTLTune.parse("t::3c,c9,z,8p") }
    #expect(error?.problems.map(\.offset) == [3, 7, 9])
  }

  @Test func longNamesAreAcceptedWithAWarning() throws {
    let tune = try RTTTLTune.parse("The Simpsons:d=4,o=5,b=160:c.6")
    #expect(
      tune.warnings == [
        RTTTLProblem(
          offset: 0, "the name 'The Simpsons' has 12 characters; Nokia phones accept at most 10", isError: false)
      ])
  }

  @Test func unknownSettingsAreIgnoredWithAWarning() throws {
    let tune = try RTTTLTune.parse("t:d=4,l=15,s=n:c")
    #expect(tune.warnings.map(\.offset) == [6, 11])
    #expect(tune.notes.count == 1)
  }

  @Test func settingsAmongTheNotesChangeWhatFollows() throws {
    let tune = try RTTTLTune.parse("t:b=60:c,b=120,c,o=5,c,d=8,c")
    #expect(tune.notes.map(\.beatsPerMinute) == [60, 120, 120, 120])
    #expect(tune.notes.map(\.octave) == [6, 6, 5, 5])
    #expect(tune.schedule(gapPercent: 0).map(\.durationMs) == [1_000, 500, 500, 250])
  }

  @Test func roundingNeverAccumulates() throws {
    // A 32nd at 63 bpm lasts 119.05 ms; 64 of them last exactly two whole notes: 7 619.05 ms.
    let tune = try RTTTLTune.parse("t:d=32,b=63:" + Array(repeating: "c", count: 64).joined(separator: ","))
    let timed = tune.schedule(gapPercent: 0)
    #expect(timed.last.map { $0.startMs + $0.durationMs } == 7_619)
    #expect(Set(timed.map(\.durationMs)) == [119, 120])
  }

  @Test(arguments: [(10, 133, 120), (0, 133, 133), (25, 133, 100), (50, 133, 66)])
  func theArticulationGapSilencesTheEndOfEachNote(percent: Int, duration: Int, sound: Int) throws {
    let tune = try RTTTLTune.parse("Nokia:d=4,o=5,b=225:8e6")
    let note = try #require(tune.schedule(gapPercent: percent).first)
    #expect(note.durationMs == duration && note.soundMs == sound)
  }

  struct Tune: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var notes: Int
    var pauses: Int
    var firstHz: UInt16
    var firstMs: Int
    var totalMs: Int
    var testDescription: String { name }
  }

  /// Public ringtones as they circulate (Arduino, ESPHome and MicroPython examples); expected values
  /// computed independently from the RTTTL formulas.
  @Test(arguments: [
    Tune(
      name: "Nokia", text: "Nokia:d=4,o=5,b=225:8e6,8d6,f#,g#,8c#6,8b,d,e,8b,8a,c#,e,2a",
      notes: 13, pauses: 0, firstHz: 1_319, firstMs: 133, totalMs: 2_933),
    Tune(
      name: "The Simpsons",
      text:
        "The Simpsons:d=4,o=5,b=160:c.6,e6,f#6,8a6,g.6,e6,c6,8a,8f#,8f#,8f#,2g,8p,8p,8f#,8f#,8f#,8g,a#.,8c6,8c6,8c6,c6",
      notes: 23, pauses: 2, firstHz: 1_047, firstMs: 563, totalMs: 6_938),
    Tune(
      name: "Take On Me",
      text:
        "TakeOnMe:d=4,o=4,b=160:8f#5,8f#5,8f#5,8d5,8p,8b,8p,8e5,8p,8e5,8p,8e5,8g#5,8g#5,8a5,8b5,8a5,8a5,8a5,8e5,8p,8d5,8p,8f#5,8p,8f#5,8p,8f#5,8e5,8e5,8f#5,8e5,8f#5,8f#5,8f#5,8d5,8p,8b,8p,8e5,8p,8e5,8p,8e5,8g#5,8g#5,8a5,8b5,8a5,8a5,8a5,8e5,8p,8d5,8p,8f#5,8p,8f#5,8p,8f#5,8e5,8e5",
      notes: 62, pauses: 16, firstHz: 740, firstMs: 188, totalMs: 11_625),
    Tune(
      name: "Mission Impossible",
      text:
        "MissionImp:d=16,o=6,b=95:32d,32d#,32d,32d#,32d,32d#,32d,32d#,32d,32d,32d#,32e,32f,32f#,32g,g,8p,g,8p,a#,p,c7,p,g,8p,g,8p,f,p,f#,p,g,8p,g,8p,a#,p,c7,p,g,8p,g,8p,f,p,f#,p,a#,g,2d,32p,a#,g,2c#,32p,a#,g,2c,a#5,8c,2p,32p,a#5,g5,2f#,32p,a#5,g5,2f,32p,a#5,g5,2e,d#,8d",
      notes: 75, pauses: 22, firstHz: 1_175, firstMs: 79, totalMs: 19_579),
  ])
  func realTunes(_ expected: Tune) throws {
    let tune = try RTTTLTune.parse(expected.text)
    #expect(tune.notes.count == expected.notes)
    #expect(tune.notes.filter(\.isPause).count == expected.pauses)
    #expect(tune.notes.first?.hz() == expected.firstHz)
    let timed = tune.schedule()
    #expect(timed.first?.durationMs == expected.firstMs)
    #expect(timed.last.map { $0.startMs + $0.durationMs } == expected.totalMs)
  }
}
