import CallAlertProtocol

/// A pattern unrolled in time the way the board plays it: steps `0 ..< k` once, then the loop
/// `loop_start ..< k` `repeat` more times (or until the cap), cut at the cap.
///
/// The renderer draws it and the validator measures the motor's runs on it, so both see exactly what
/// the board will do within one alert.
public struct PatternTimeline: Equatable, Sendable {
  /// One played step.
  public struct Segment: Equatable, Sendable {
    /// When the step starts, in ms from the start of the alert.
    public var startMs: Int
    /// How long it plays (shortened when the cap cuts it).
    public var durationMs: Int
    /// The step's index in the pattern.
    public var stepIndex: Int
    /// The step.
    public var step: PatternStep

    /// When it ends.
    public var endMs: Int { startMs + durationMs }

    /// Creates a segment.
    public init(startMs: Int, durationMs: Int, stepIndex: Int, step: PatternStep) {
      self.startMs = startMs
      self.durationMs = durationMs
      self.stepIndex = stepIndex
      self.step = step
    }
  }

  /// The played steps in order.
  public var segments: [Segment]
  /// How long the alert plays: the natural length or the cap, whichever is shorter.
  public var lengthMs: Int
  /// The natural length; nil when the pattern repeats until the cap.
  public var naturalLengthMs: Int?
  /// The cap applied.
  public var capMs: Int

  /// Whether the cap cuts the pattern short (always for one that repeats forever).
  public var isCut: Bool { naturalLengthMs.map { $0 > capMs } ?? true }

  /// Unrolls `pattern` up to `capMs` (default: the board's absolute cap, 30 000 ms).
  public init(_ pattern: Pattern, capMs: Int = Int(absoluteCapMs)) {
    self.capMs = capMs
    naturalLengthMs = pattern.totalDurationMs.map(Int.init)
    var segments: [Segment] = []
    var time = 0
    var passes = 0
    let loopStart = min(Int(pattern.loopStart), max(pattern.steps.count - 1, 0))
    let loopLength = pattern.steps[loopStart...].reduce(0) { $0 + Int($1.durationMs) }
    var index = 0
    while time < capMs, index < pattern.steps.count {
      let step = pattern.steps[index]
      let duration = min(Int(step.durationMs), capMs - time)
      segments.append(Segment(startMs: time, durationMs: duration, stepIndex: index, step: step))
      time += duration
      index += 1
      if index == pattern.steps.count {
        let more = pattern.repeatCount == Pattern.repeatForever || passes < Int(pattern.repeatCount)
        guard more, loopLength > 0 else { break }
        passes += 1
        index = loopStart
      }
    }
    self.segments = segments
    lengthMs = time
  }

  /// The most time the motor runs within any `windowMs` of the alert (all of it when the window is
  /// longer than the alert): what the board's duty limit measures, with no history before the alert.
  public func maxMotorOnMs(inWindow windowMs: Int) -> Int {
    let on = segments.filter { $0.step.motor != 0 }
    guard windowMs < lengthMs else { return on.reduce(0) { $0 + $1.durationMs } }
    // The sum over a sliding window of a step function is largest with an edge on a step boundary.
    var best = 0
    for start in on.map(\.startMs) + on.map({ max(0, $0.endMs - windowMs) }) {
      let end = start + windowMs
      let total = on.reduce(0) { $0 + max(0, min($1.endMs, end) - max($1.startMs, start)) }
      best = max(best, total)
    }
    return best
  }

  /// The step playing at `timeMs`, if any.
  public func step(at timeMs: Int) -> PatternStep? {
    segments.first { $0.startMs <= timeMs && timeMs < $0.endMs }?.step
  }
}
