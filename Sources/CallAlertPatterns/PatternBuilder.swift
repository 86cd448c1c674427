import CallAlertProtocol

/// Turns timed pieces (a note, a cadence slice, a vibration timing, an explicit step) into wire steps.
///
/// The wire has limits people should not have to think about: a step lasts 1 to 65 535 ms, so longer
/// pieces are split and zero-length ones dropped. Generated sources (cadences, RTTTL, waveforms) also
/// merge neighbours that sound the same, which saves steps (a pause after a note's articulation gap is
/// one silent step, not two). Explicit steps are never merged: the author chose them, and the decompiler
/// relies on one written step per wire step.
struct PatternBuilder {
  /// The problems that keep a pattern from being built.
  enum Problem: Error, Equatable {
    /// Every piece had zero length.
    case empty
    /// The loop was marked to start where only zero-length pieces follow.
    case emptyLoop
  }

  private struct Piece {
    var ms: Int
    var hz: UInt16
    var volume: UInt8
    var motor: UInt8
    var leds: UInt8
    var origin: StepOrigin

    func sounds(like other: Piece) -> Bool {
      hz == other.hz && volume == other.volume && motor == other.motor && leds == other.leds
    }
  }

  private let merges: Bool
  private var pieces: [Piece] = []
  private var loopStart: Int? = nil
  private var loopPending = false

  /// Creates a builder; `merges` joins neighbouring pieces that sound the same.
  init(merges: Bool) {
    self.merges = merges
  }

  /// Whether any piece with a length was added.
  var isEmpty: Bool { pieces.isEmpty }

  /// The total length of the pieces so far.
  var totalMs: Int { pieces.reduce(0) { $0 + $1.ms } }

  /// Adds a piece; a silent piece (frequency or volume 0) is stored with both 0, so silences merge.
  mutating func add(
    ms: Int, hz: UInt16 = 0, volume: UInt8 = 0, motor: UInt8 = 0, leds: UInt8 = 0, origin: StepOrigin,
    normalizeSilence: Bool = true
  ) {
    guard ms > 0 else { return }
    var piece = Piece(ms: ms, hz: hz, volume: volume, motor: motor, leds: leds, origin: origin)
    if normalizeSilence && (hz == 0 || volume == 0) {
      piece.hz = 0
      piece.volume = 0
    }
    if loopPending {
      loopPending = false
      loopStart = pieces.count
      pieces.append(piece)
      return
    }
    if merges, let last = pieces.last, last.sounds(like: piece) {
      pieces[pieces.count - 1].ms += piece.ms
      return
    }
    pieces.append(piece)
  }

  /// Makes the next piece with a length the first of the loop.
  mutating func markLoopStart() {
    loopPending = true
  }

  /// The pattern, with one origin per wire step.
  func build(repeatCount: UInt8) throws(Problem) -> (pattern: Pattern, origins: [StepOrigin]) {
    guard !pieces.isEmpty else { throw .empty }
    guard !loopPending else { throw .emptyLoop }
    var steps: [PatternStep] = []
    var origins: [StepOrigin] = []
    var wireLoopStart = 0
    for (index, piece) in pieces.enumerated() {
      if index == loopStart { wireLoopStart = steps.count }
      var remaining = piece.ms
      while remaining > 0 {
        let chunk = min(remaining, Int(UInt16.max))
        steps.append(
          PatternStep(
            durationMs: UInt16(chunk), buzzerHz: piece.hz, buzzerVolume: piece.volume, motor: piece.motor,
            leds: piece.leds))
        origins.append(piece.origin)
        remaining -= chunk
      }
    }
    return (Pattern(steps: steps, repeatCount: repeatCount, loopStart: UInt16(wireLoopStart)), origins)
  }
}
