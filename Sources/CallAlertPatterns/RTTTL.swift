import CallAlertProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A problem found in an RTTTL string, at an offset (in Unicode scalars) from the string's first character.
public struct RTTTLProblem: Equatable, Sendable {
  /// Where, counted in Unicode scalars from the start of the RTTTL string.
  public var offset: Int
  /// What is wrong and what to change.
  public var message: String
  /// Whether the tune cannot be played as written (otherwise it is a warning).
  public var isError: Bool

  /// Creates a problem.
  public init(offset: Int, _ message: String, isError: Bool = true) {
    self.offset = offset
    self.message = message
    self.isError = isError
  }
}

/// What ``RTTTLTune/parse(_:)`` throws: every problem in the string, errors and warnings.
public struct RTTTLError: Error, Equatable, Sendable {
  /// All problems, in string order.
  public var problems: [RTTTLProblem]
}

/// One note (or pause) of an RTTTL tune, as written.
public struct RTTTLNote: Equatable, Sendable {
  /// Where the note starts in the string, in Unicode scalars.
  public var offset: Int
  /// The note as written, without surrounding whitespace, e.g. `8c#.6`.
  public var text: String
  /// Semitones above C (C 0 … B 11, a sharp adds 1, so `b#` is 12); nil for a pause.
  public var semitone: Int?
  /// The RTTTL octave (4-7), written or the default in effect.
  public var octave: Int
  /// The note's duration divider: 1 whole, 2 half, 4 quarter … 32.
  public var duration: Int
  /// Whether the note is dotted (1.5 times as long).
  public var dotted: Bool
  /// The tempo in effect, in beats (quarter notes) per minute.
  public var beatsPerMinute: Int

  /// Whether this is a pause.
  public var isPause: Bool { semitone == nil }

  /// The length in 64ths of a whole note; a dotted 32nd is 3, so every length is a whole number.
  public var sixtyFourths: Int { dotted ? 96 / duration : 64 / duration }

  /// The exact length in milliseconds: 60 000 × 4 / (b × d), times 1.5 when dotted.
  public var exactMs: Double { Double(sixtyFourths) * 3_750 / Double(beatsPerMinute) }

  /// The frequency in Hz before rounding; `octaveOffset` is added to the RTTTL octave to get the
  /// scientific octave (0: RTTTL `a4` is 440 Hz; -1: RTTTL `a5` is 440 Hz).
  public func frequency(octaveOffset: Int = 0) -> Double? {
    guard let semitone else { return nil }
    return RTTTLTune.frequency(semitone: semitone, scientificOctave: octave + octaveOffset)
  }

  /// The frequency rounded to the nearest Hz, as the buzzer plays it.
  public func hz(octaveOffset: Int = 0) -> UInt16? {
    frequency(octaveOffset: octaveOffset).map { UInt16(clamping: Int($0.rounded())) }
  }
}

/// A tune in RTTTL, the Ring Tone Text Transfer Language of Nokia phones: `name:d=4,o=5,b=63:notes`.
///
/// The grammar accepted (whitespace may appear anywhere except inside the name, where it is kept):
/// ```
/// tune     := name ":" [setting ("," setting)*] ":" command ("," command)*
/// setting  := ("d" | "o" | "b") ["="] number     ; unknown settings are ignored with a warning
/// command  := note | setting-with-"="           ; a setting among the notes changes what follows
/// note     := [duration] letter ["#"] ["."] [octave] ["."]   ; one dot, before or after the octave
/// duration := 1 | 2 | 4 | 8 | 16 | 32
/// letter   := a b c d e f g | h (= b, German and some Nokia files) | p (pause); any case
/// octave   := 4 | 5 | 6 | 7
/// ```
/// Defaults when absent: d=4, o=6, b=63 (each key separately). Names longer than the 10 characters
/// Nokia allowed are accepted with a warning.
public struct RTTTLTune: Equatable, Sendable {
  /// The name before the first colon.
  public var name: String
  /// The default duration from the settings (or 4).
  public var defaultDuration: Int
  /// The default octave from the settings (or 6).
  public var defaultOctave: Int
  /// The tempo from the settings (or 63).
  public var beatsPerMinute: Int
  /// The notes and pauses in order.
  public var notes: [RTTTLNote]
  /// Warnings: a long name, unknown settings, empty notes.
  public var warnings: [RTTTLProblem]

  /// The valid duration dividers.
  public static let durations = [1, 2, 4, 8, 16, 32]
  /// The valid octaves.
  public static let octaves = 4...7
  /// The valid tempos.
  public static let tempos = 1...900
  /// The longest name Nokia phones accepted.
  public static let maxNameLength = 10
  /// The most notes (and pauses) a tune may have: each becomes up to two steps (the note and its
  /// articulation gap), and a pattern has at most 65 535. Reading stops at the first note beyond, so a
  /// huge string costs no more than this many notes.
  public static let maximumNotes = Int(UInt16.max) / 2
  /// The most problems reported; reading stops after the one that reaches it.
  public static let maximumProblems = 100

  /// The frequency of a note in equal temperament with A4 = 440 Hz (scientific pitch: C4 is middle C).
  public static func frequency(semitone: Int, scientificOctave: Int) -> Double {
    let midi = (scientificOctave + 1) * 12 + semitone
    return 440 * pow(2, Double(midi - 69) / 12)
  }

  /// Parses a tune, collecting every problem before failing.
  public static func parse(_ text: String) throws(RTTTLError) -> RTTTLTune {
    var parser = RTTTLParser(Array(text.unicodeScalars))
    let tune = parser.parse()
    guard let tune, !parser.problems.contains(where: \.isError) else {
      throw RTTTLError(problems: parser.problems.sorted { $0.offset < $1.offset })
    }
    return tune
  }

  /// One note placed in time.
  public struct TimedNote: Equatable, Sendable {
    /// The note.
    public var note: RTTTLNote
    /// When it starts, in ms from the start of the tune.
    public var startMs: Int
    /// How long it lasts, including its articulation gap.
    public var durationMs: Int
    /// How long it sounds (the rest of `durationMs` is the silent gap); 0 for a pause.
    public var soundMs: Int
  }

  /// Places the notes in time. Boundaries are the exact times rounded to the nearest millisecond, so
  /// rounding never accumulates (a tune of 64 32nd notes lasts exactly two whole notes). The last
  /// `gapPercent` of each note is silent so that repeated notes are heard as separate notes.
  public func schedule(gapPercent: Int = 10) -> [TimedNote] {
    var timed: [TimedNote] = []
    var numerator = 0  // exact start of the next note, as numerator / denominator ms
    var denominator = 1
    for note in notes {
      let start = RTTTLTune.roundedDivision(numerator, denominator)
      // Add sixtyFourths × 3 750 / bpm to the running fraction, keeping it reduced.
      let addNumerator = note.sixtyFourths * 3_750
      let common = RTTTLTune.lcm(denominator, note.beatsPerMinute)
      numerator = numerator * (common / denominator) + addNumerator * (common / note.beatsPerMinute)
      denominator = common
      let divisor = RTTTLTune.gcd(numerator, denominator)
      numerator /= divisor
      denominator /= divisor
      let duration = RTTTLTune.roundedDivision(numerator, denominator) - start
      var gap = note.isPause ? duration : (duration * gapPercent + 50) / 100
      if !note.isPause && gapPercent > 0 && gap == 0 && duration >= 2 { gap = 1 }
      timed.append(TimedNote(note: note, startMs: start, durationMs: duration, soundMs: duration - gap))
    }
    return timed
  }

  private static func roundedDivision(_ numerator: Int, _ denominator: Int) -> Int {
    (2 * numerator + denominator) / (2 * denominator)
  }

  private static func gcd(_ a: Int, _ b: Int) -> Int {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return max(a, 1)
  }

  private static func lcm(_ a: Int, _ b: Int) -> Int { a / gcd(a, b) * b }
}

/// The single pass over an RTTTL string behind ``RTTTLTune/parse(_:)``.
private struct RTTTLParser {
  /// A character of the string with its offset; whitespace is filtered out of the settings and notes.
  private struct Character {
    var scalar: Unicode.Scalar
    var offset: Int
  }

  private let scalars: [Unicode.Scalar]
  private(set) var problems: [RTTTLProblem] = []
  private var duration = 4
  private var octave = 6
  private var tempo = 63

  init(_ scalars: [Unicode.Scalar]) {
    self.scalars = scalars
  }

  private mutating func error(_ offset: Int, _ message: String) {
    problems.append(RTTTLProblem(offset: offset, message))
  }

  private mutating func warning(_ offset: Int, _ message: String) {
    problems.append(RTTTLProblem(offset: offset, message, isError: false))
  }

  /// Whether so many problems were found that reading stops (the last one says so).
  private mutating func tooManyProblems(at offset: Int) -> Bool {
    guard problems.count >= RTTTLTune.maximumProblems else { return false }
    error(offset, "stopped after \(RTTTLTune.maximumProblems) problems; fix these first")
    return true
  }

  mutating func parse() -> RTTTLTune? {
    guard let firstColon = scalars.firstIndex(of: ":") else {
      error(0, "expected 'name:settings:notes' but found no ':'; write e.g. 'tune:d=4,o=5,b=120:c,e,g'")
      return nil
    }
    guard let secondColon = scalars[(firstColon + 1)...].firstIndex(of: ":") else {
      error(
        firstColon,
        "expected a second ':' after the settings; write 'name::notes' to use the defaults d=4, o=6, b=63")
      return nil
    }
    let name = parseName(0..<firstColon)
    parseSettings(firstColon + 1..<secondColon)
    let tune = RTTTLTune(
      name: name, defaultDuration: duration, defaultOctave: octave, beatsPerMinute: tempo, notes: [], warnings: [])
    let notes = parseNotes(secondColon + 1..<scalars.count)
    if notes.isEmpty && !problems.contains(where: \.isError) {
      error(secondColon, "the tune has no notes after the second ':'")
    }
    var result = tune
    result.notes = notes
    result.warnings = problems.filter { !$0.isError }
    return result
  }

  private mutating func parseName(_ range: Range<Int>) -> String {
    var slice = scalars[range]
    while let first = slice.first, first.properties.isWhitespace { slice.removeFirst() }
    while let last = slice.last, last.properties.isWhitespace { slice.removeLast() }
    var name = ""
    name.unicodeScalars.append(contentsOf: slice)
    if slice.count > RTTTLTune.maxNameLength {
      warning(
        slice.startIndex,
        "the name '\(name)' has \(slice.count) characters; Nokia phones accept at most \(RTTTLTune.maxNameLength)")
    }
    return name
  }

  /// The characters of `range` without whitespace, split at commas.
  private func items(_ range: Range<Int>) -> [(start: Int, end: Int, characters: [Character])] {
    var result: [(Int, Int, [Character])] = []
    var current: [Character] = []
    var start = range.lowerBound
    for offset in range {
      let scalar = scalars[offset]
      if scalar == "," {
        result.append((start, offset, current))
        current = []
        start = offset + 1
      } else if !scalar.properties.isWhitespace {
        current.append(Character(scalar: scalar, offset: offset))
      }
    }
    result.append((start, range.upperBound, current))
    return result
  }

  private mutating func parseSettings(_ range: Range<Int>) {
    let all = items(range)
    for item in all {
      guard !item.characters.isEmpty else {
        if all.count > 1 { warning(item.start, "empty setting between commas is ignored") }
        continue
      }
      parseSetting(item.characters, requireEquals: false)
      if tooManyProblems(at: item.start) { return }
    }
  }

  /// Parses `key[=]value`; returns false when the characters are not a setting at all.
  @discardableResult
  private mutating func parseSetting(_ characters: [Character], requireEquals: Bool) -> Bool {
    var index = 0
    var key = ""
    while index < characters.count, characters[index].scalar.properties.isAlphabetic {
      key.unicodeScalars.append(characters[index].scalar)
      index += 1
    }
    let hasEquals = index < characters.count && characters[index].scalar == "="
    if requireEquals && !hasEquals { return false }
    guard !key.isEmpty else {
      error(characters[0].offset, "expected a setting such as d=4, o=6 or b=63")
      return true
    }
    if hasEquals { index += 1 }
    guard ["d", "o", "b"].contains(key.lowercased()) else {
      // The specification: "any unknown control-names must be ignored" (RTX files add l= and s=).
      warning(characters[0].offset, "unknown setting '\(key)' is ignored; RTTTL knows d, o and b")
      return true
    }
    let valueOffset = index < characters.count ? characters[index].offset : characters[characters.count - 1].offset + 1
    guard let (value, end) = number(characters, from: index), end == characters.count else {
      let shown = String(String.UnicodeScalarView(characters[index...].map(\.scalar)))
      error(valueOffset, shown.isEmpty ? "setting '\(key)' has no value" : "'\(shown)' is not a whole number")
      return true
    }
    switch key.lowercased() {
    case "d":
      if RTTTLTune.durations.contains(value) {
        duration = value
      } else {
        error(valueOffset, "d=\(value) is not an RTTTL duration; use 1, 2, 4, 8, 16 or 32")
      }
    case "o":
      if RTTTLTune.octaves.contains(value) {
        octave = value
      } else {
        error(valueOffset, "o=\(value) is out of range; RTTTL octaves are 4 to 7")
      }
    case "b":
      if RTTTLTune.tempos.contains(value) {
        tempo = value
      } else {
        error(valueOffset, "b=\(value) is out of range; use 1 to 900 beats per minute")
      }
    default:
      break
    }
    return true
  }

  private func number(_ characters: [Character], from start: Int) -> (Int, Int)? {
    var index = start
    var value = 0
    while index < characters.count, ("0"..."9").contains(characters[index].scalar) {
      // Clamped so that a run of digits cannot overflow; any such value is out of range anyway.
      value = min(value * 10 + Int(characters[index].scalar.value - 48), 1_000_000)
      index += 1
    }
    return index > start ? (value, index) : nil
  }

  /// Reads the notes one comma-separated item at a time (a huge tune is never split up front), stopping
  /// after ``RTTTLTune/maximumNotes`` notes or ``RTTTLTune/maximumProblems`` problems.
  private mutating func parseNotes(_ range: Range<Int>) -> [RTTTLNote] {
    var notes: [RTTTLNote] = []
    var characters: [Character] = []
    var start = range.lowerBound
    for offset in range.lowerBound...range.upperBound {
      let atEnd = offset == range.upperBound
      if !atEnd && scalars[offset] != "," {
        if !scalars[offset].properties.isWhitespace {
          characters.append(Character(scalar: scalars[offset], offset: offset))
        }
        continue
      }
      defer {
        characters.removeAll(keepingCapacity: true)
        start = offset + 1
      }
      guard let first = characters.first else {
        if !atEnd { warning(start, "empty note between commas is ignored") }
        if tooManyProblems(at: start) { return notes }
        continue
      }
      if characters.count > 1, first.scalar.properties.isAlphabetic, parseSetting(characters, requireEquals: true) {
        if tooManyProblems(at: start) { return notes }
        continue
      }
      guard notes.count < RTTTLTune.maximumNotes else {
        error(
          first.offset,
          "the tune has more than \(RTTTLTune.maximumNotes) notes, more than a pattern's 65 535 steps can play; "
            + "shorten it")
        return notes
      }
      if let note = parseNote(characters) { notes.append(note) }
      if tooManyProblems(at: start) { return notes }
    }
    return notes
  }

  private mutating func parseNote(_ characters: [Character]) -> RTTTLNote? {
    let first = characters[0].offset
    let last = characters[characters.count - 1].offset
    var text = ""
    text.unicodeScalars.append(contentsOf: scalars[first...last])
    var index = 0
    var noteDuration = duration
    if let (value, end) = number(characters, from: 0) {
      guard RTTTLTune.durations.contains(value) else {
        error(first, "duration \(value) in '\(text)' is not an RTTTL duration; use 1, 2, 4, 8, 16 or 32")
        return nil
      }
      noteDuration = value
      index = end
    }
    guard index < characters.count else {
      error(first, "'\(text)' has a duration but no note; add a note a-g, h or p")
      return nil
    }
    let letterOffset = characters[index].offset
    let semitones: [Unicode.Scalar: Int] = ["c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11, "h": 11]
    let letter = Unicode.Scalar(String(characters[index].scalar).lowercased()) ?? characters[index].scalar
    var semitone: Int? = semitones[letter]
    guard semitone != nil || letter == "p" else {
      error(letterOffset, "'\(characters[index].scalar)' in '\(text)' is not a note; use a-g, h (= b) or p (pause)")
      return nil
    }
    index += 1
    if index < characters.count, characters[index].scalar == "#" {
      guard semitone != nil else {
        error(characters[index].offset, "a pause cannot be sharp; remove the '#' from '\(text)'")
        return nil
      }
      semitone! += 1
      index += 1
    }
    var dotted = false
    if index < characters.count, characters[index].scalar == "." {
      dotted = true
      index += 1
    }
    var noteOctave = octave
    if let (value, end) = number(characters, from: index) {
      guard RTTTLTune.octaves.contains(value) else {
        error(characters[index].offset, "octave \(value) in '\(text)' is out of range; RTTTL octaves are 4 to 7")
        return nil
      }
      noteOctave = value
      index = end
    }
    if index < characters.count, characters[index].scalar == "." {
      guard !dotted else {
        error(characters[index].offset, "'\(text)' has two dots; a note takes one, before or after the octave")
        return nil
      }
      dotted = true
      index += 1
    }
    guard index == characters.count else {
      error(characters[index].offset, "unexpected '\(characters[index].scalar)' in note '\(text)'")
      return nil
    }
    return RTTTLNote(
      offset: first, text: text, semitone: semitone, octave: noteOctave, duration: noteDuration, dotted: dotted,
      beatsPerMinute: tempo)
  }
}
