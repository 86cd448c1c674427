import CallAlertProtocol

/// Plays one pattern under a cap: a pure function of the pattern, its start, its cap and the time.
///
/// Every step boundary is `startMs` plus the sum of the durations before it, an exact integer, so a long
/// looped pattern never drifts however late or irregular the calls to ``advance(to:)`` are. The pattern
/// runs once in full, then `repeatCount` extra passes over `loopStart ..< count`
/// (``Pattern/repeatForever`` loops until the cap). It ends `completed` at its natural end or `capped`
/// at exactly `startMs + capMs`, whichever comes first; when both fall on the same millisecond the
/// pattern completed.
public struct Player: Sendable {
  /// Where the play is.
  public enum Position: Equatable, Sendable {
    /// Step `index` of the pattern sounds.
    case step(index: Int)
    /// The pattern ran to its end at `atMs`.
    case completed(atMs: UInt64)
    /// The cap stopped it at `atMs`.
    case capped(atMs: UInt64)
  }

  /// The pattern.
  public let pattern: Pattern
  /// When the play started.
  public let startMs: UInt64
  /// How long it may last.
  public let capMs: UInt64
  /// Where it is, as of the last ``advance(to:)``.
  public private(set) var position: Position
  /// When the current step started, relative to `startMs`.
  public private(set) var stepStartOffsetMs: UInt64 = 0
  /// Extra passes over the loop done so far (0 during the first pass).
  public private(set) var extraPasses: Int = 0

  /// Starts `pattern` at `startMs` under `capMs`.
  public init(pattern: Pattern, startMs: UInt64, capMs: UInt64) {
    self.pattern = pattern
    self.startMs = startMs
    self.capMs = capMs
    if pattern.steps.isEmpty {
      position = .completed(atMs: startMs)
    } else if capMs == 0 {
      position = .capped(atMs: startMs)
    } else {
      position = .step(index: 0)
    }
  }

  /// The step sounding now, nil once the play ended.
  public var currentStep: PatternStep? {
    if case .step(let index) = position { return pattern.steps[index] }
    return nil
  }

  /// Whether the play ended (completed or capped).
  public var hasEnded: Bool {
    if case .step = position { return false }
    return true
  }

  /// When the current step ends or the cap strikes, whichever is first; nil once ended.
  public var nextBoundaryMs: UInt64? {
    guard case .step(let index) = position else { return nil }
    return startMs + min(stepStartOffsetMs + duration(index), capMs)
  }

  /// Moves the play to `nowMs` and returns where it is. Times before the last call change nothing.
  @discardableResult
  public mutating func advance(to nowMs: UInt64) -> Position {
    guard case .step(var index) = position else { return position }
    let elapsed = nowMs >= startMs ? nowMs - startMs : 0
    let last = pattern.steps.count - 1
    let loopStart = min(Int(pattern.loopStart), last)
    while true {
      let end = stepStartOffsetMs + duration(index)
      if end > elapsed || end > capMs { break }
      if index < last {
        index += 1
      } else if pattern.repeatCount == Pattern.repeatForever || extraPasses < Int(pattern.repeatCount) {
        extraPasses += 1
        index = loopStart
      } else {
        position = .completed(atMs: startMs + end)
        return position
      }
      stepStartOffsetMs = end
    }
    position = elapsed >= capMs ? .capped(atMs: startMs + capMs) : .step(index: index)
    return position
  }

  /// A step's length; a zero-length step (the wire forbids them) lasts 1 ms so that a hand-made
  /// pattern cannot spin this loop forever.
  private func duration(_ index: Int) -> UInt64 {
    max(1, UInt64(pattern.steps[index].durationMs))
  }
}
