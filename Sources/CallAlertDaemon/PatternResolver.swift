import CallAlertEngine
import CallAlertPatterns
import CallAlertProtocol

/// Turns the engine's pattern references into what a board can play: a slot of its table, or a pattern
/// sent inline. A name is looked up in the board's table (once the daemon has read it), then among the
/// built-in patterns; anything unknown falls back to the default ring, so a call always rings, and the
/// resolution says so.
///
/// A PLAY that mutes the buzzer but not the motor (silent mode, a vibrate-only board) plays the pattern's
/// rhythm on the motor (``MotorRhythm``), sent inline: the board would otherwise play the pattern's own
/// motor steps, which for a ring are none. A slot whose steps are unknown (the table was not read) plays
/// the default ring's rhythm instead.
struct PatternResolver: Sendable {
  /// The default ring's name: the UK double ring.
  static let fallbackName = "UK"

  /// The pattern played when nothing else can be: the UK double ring with the motor, looping until the cap.
  static let fallback: Pattern =
    BuiltInPatterns.named(fallbackName).map { looping($0.pattern) }
    ?? Pattern(
      steps: [
        PatternStep(durationMs: 400, buzzerHz: 400, buzzerVolume: 255, motor: 255),
        PatternStep(durationMs: 200),
        PatternStep(durationMs: 400, buzzerHz: 450, buzzerVolume: 255, motor: 255),
        PatternStep(durationMs: 2_000),
      ], repeatCount: Pattern.repeatForever)

  /// What a PLAY carries, and whether it is what was asked for.
  struct Resolution: Equatable, Sendable {
    /// The pattern's source for PLAY.
    var source: PatternSource
    /// When something else plays than the reference named: what plays, and why.
    var fallback: Fallback?
  }

  /// A pattern played in place of the one asked for.
  struct Fallback: Equatable, Sendable {
    /// What plays, e.g. `UK` or `UK on the motor`.
    var played: String
    /// Why, e.g. `no pattern named 'offfice'`.
    var reason: String
  }

  /// Slot names of the board's installed table, by name (lower-cased).
  var slotNames: [String: UInt8] = [:]
  /// The patterns of the board's installed table, by slot; empty until the table was read.
  var slotPatterns: [UInt8: Pattern] = [:]
  /// Whether the board's table was read (so a slot missing from ``slotPatterns`` is known to be empty).
  var tableKnown = false

  /// Learns the board's installed table (nil: the board has none).
  mutating func learn(_ table: PatternTable?) {
    slotNames = [:]
    slotPatterns = [:]
    for (slot, entry) in (table?.slots ?? []).enumerated() {
      guard let entry else { continue }
      let name = String(decoding: entry.name.prefix { $0 != 0 }, as: UTF8.self).lowercased()
      if !name.isEmpty, slotNames[name] == nil { slotNames[name] = UInt8(slot) }
      slotPatterns[UInt8(slot)] = entry.pattern
    }
    tableKnown = true
  }

  /// Forgets the table (a board that restarted or was replaced may hold another one).
  mutating func forgetTable() {
    slotNames = [:]
    slotPatterns = [:]
    tableKnown = false
  }

  /// Whether a PLAY with `options` is felt only: the buzzer muted, the motor not.
  static func isMotorOnly(_ options: PlayOptions) -> Bool {
    options.contains(.muteBuzzer) && !options.contains(.muteMotor)
  }

  /// What to play for `reference` under `options`.
  func resolve(_ reference: PatternReference, options: PlayOptions) -> Resolution {
    let motorOnly = Self.isMotorOnly(options)
    switch reference {
    case .slot(let slot):
      // A board known to hold no table has no slot to play (the default, slot 0, on a board never flashed):
      // the default ring, without a PLAY it can only refuse.
      if tableKnown && slotPatterns.isEmpty {
        let why = "the board has no pattern table (`callalert flash` installs one)"
        return motorOnly
          ? Resolution(
            source: .inline(Self.fallbackRhythm), fallback: Fallback(played: Self.fallbackRhythmName, reason: why))
          : Resolution(source: .inline(Self.fallback), fallback: Fallback(played: Self.fallbackName, reason: why))
      }
      guard motorOnly else { return Resolution(source: .slot(slot)) }
      if let pattern = slotPatterns[slot] { return rhythm(of: pattern, describedAs: "slot \(slot)") }
      let why =
        tableKnown
        ? "the board has no slot \(slot)" : "slot \(slot)'s steps are unknown (the board's table was not read)"
      return Resolution(
        source: .inline(Self.fallbackRhythm), fallback: Fallback(played: Self.fallbackRhythmName, reason: why))
    case .inline(let pattern):
      return motorOnly ? rhythm(of: pattern, describedAs: "the inline pattern") : Resolution(source: .inline(pattern))
    case .named(let name):
      if let slot = slotNames[name.lowercased()] {
        guard motorOnly else { return Resolution(source: .slot(slot)) }
        if let pattern = slotPatterns[slot] { return rhythm(of: pattern, describedAs: "'\(name)'") }
      }
      if let builtIn = BuiltInPatterns.named(name)?.pattern {
        let looped = Self.looping(builtIn)
        return motorOnly ? rhythm(of: looped, describedAs: "'\(name)'") : Resolution(source: .inline(looped))
      }
      let why = "no pattern named '\(name)' on the board or among the built-ins"
      return motorOnly
        ? Resolution(
          source: .inline(Self.fallbackRhythm), fallback: Fallback(played: Self.fallbackRhythmName, reason: why))
        : Resolution(source: .inline(Self.fallback), fallback: Fallback(played: Self.fallbackName, reason: why))
    }
  }

  /// What plays when the board refused the resolved pattern (no such slot, a pattern it cannot play).
  static func afterRefusal(options: PlayOptions, because reason: String) -> Resolution {
    isMotorOnly(options)
      ? Resolution(source: .inline(fallbackRhythm), fallback: Fallback(played: fallbackRhythmName, reason: reason))
      : Resolution(source: .inline(fallback), fallback: Fallback(played: fallbackName, reason: reason))
  }

  /// The default ring on the motor.
  static let fallbackRhythm: Pattern = MotorRhythm.of(fallback) ?? fallback
  /// How events name it.
  static let fallbackRhythmName = "\(fallbackName) on the motor"

  private func rhythm(of pattern: Pattern, describedAs name: String) -> Resolution {
    if let felt = MotorRhythm.of(pattern) { return Resolution(source: .inline(felt)) }
    return Resolution(
      source: .inline(Self.fallbackRhythm),
      fallback: Fallback(played: Self.fallbackRhythmName, reason: "\(name) neither sounds nor vibrates"))
  }

  /// A ring repeats until something stops it, as a phone's does: a built-in that plays once is looped.
  static func looping(_ pattern: Pattern) -> Pattern {
    var looped = pattern
    if looped.repeatCount != Pattern.repeatForever {
      looped.repeatCount = Pattern.repeatForever
      looped.loopStart = 0
    }
    return looped
  }
}
