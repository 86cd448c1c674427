import CallAlertProtocol

/// A pattern's rhythm as a light plays it: each step lit (it sounds, vibrates or lights an LED) or dark, for
/// its duration, with the pattern's loop.
public struct LightRhythm: Equatable, Sendable {
  /// One stretch of the rhythm.
  public struct Segment: Equatable, Sendable {
    /// Lit or dark.
    public var lit: Bool
    /// How long, at least 1 ms.
    public var durationMs: UInt32
  }

  /// The segments of one pass.
  public var segments: [Segment]
  /// Where each repetition starts.
  public var loopStart: Int
  /// Extra passes over the loop; ``CallAlertProtocol/Pattern/repeatForever`` until stopped.
  public var repeatCount: UInt8

  /// The rhythm of `pattern`.
  public init(_ pattern: Pattern) {
    segments = pattern.steps.map { step in
      Segment(lit: step.isAudible || step.motor != 0 || step.leds != 0, durationMs: max(1, UInt32(step.durationMs)))
    }
    loopStart = min(Int(pattern.loopStart), max(0, segments.count - 1))
    repeatCount = pattern.repeatCount
  }

  /// Whether it loops until stopped.
  public var isEndless: Bool { repeatCount == Pattern.repeatForever }
}
