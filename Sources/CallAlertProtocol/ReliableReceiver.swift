/// The receiving half of a reliable channel: accepts frames strictly in sequence, recognises duplicates
/// of the last `window` frames and replays their answers, and refuses frames that skip ahead.
public struct ReliableReceiver: Sendable {
  /// What to do with an incoming frame.
  public enum Disposition: Equatable, Sendable {
    /// The next frame in order: act on it, then record the answer with ``record(answer:)``.
    case new
    /// A frame already acted on: send this answer again, act on nothing.
    case replay(Frame)
    /// A duplicate of a frame whose answer is not kept (an idempotent command): act on it again.
    case repeatIdempotent
    /// A frame ahead of the expected one (something before it was lost): refuse it with a
    /// ``ErrorCode/sequenceGap`` NAK carrying `expected`.
    case gap(expected: UInt16)
    /// A frame older than anything remembered: drop it silently.
    case stale
  }

  /// How many recent answers are kept for replay.
  public var window: Int
  /// The sequence expected next, or nil when any sequence is accepted (before the first frame).
  public private(set) var expected: UInt16?
  /// Duplicates recognised so far.
  public private(set) var duplicates: UInt32 = 0

  private var answers: [(sequence: UInt16, answer: Frame?)] = []

  /// Creates a receiver that accepts any first sequence.
  public init(window: Int = 1) {
    self.window = max(1, window)
  }

  /// Classifies an incoming frame by its sequence.
  public mutating func accept(sequence: UInt16, idempotent: Bool) -> Disposition {
    guard let expected else { return .new }
    if sequence == expected { return .new }
    let behind = expected &- sequence
    if Int(behind) <= window {
      duplicates &+= 1
      if let kept = answers.last(where: { $0.sequence == sequence }), let answer = kept.answer {
        return .replay(answer)
      }
      return idempotent ? .repeatIdempotent : .stale
    }
    let ahead = sequence &- expected
    if ahead < 0x8000 { return .gap(expected: expected) }
    return .stale
  }

  /// Records the answer to the frame just classified `.new` and moves on to the next sequence.
  /// Pass nil for answers not worth keeping (idempotent commands, event acknowledgements).
  ///
  /// Answers to anything else (a repeated idempotent command) change nothing: the expectation only moves
  /// forward, so a re-executed duplicate can never make later commands count as new again.
  public mutating func record(sequence: UInt16, answer: Frame?) {
    if let expected, sequence != expected { return }
    expected = sequence &+ 1
    answers.append((sequence, answer))
    if answers.count > window { answers.removeFirst(answers.count - window) }
  }

  /// Keeps `answer` for a sequence already recorded (the answer came after the frame was accepted), so
  /// that a duplicate of it is answered the same way.
  public mutating func keep(answer: Frame, for sequence: UInt16) {
    guard let index = answers.lastIndex(where: { $0.sequence == sequence }) else { return }
    answers[index].answer = answer
  }

  /// Forgets everything: the next frame is accepted whatever its sequence.
  public mutating func reset() {
    expected = nil
    answers.removeAll()
  }
}

extension ReliableReceiver {
  /// Counts a duplicate recognised outside ``accept(sequence:idempotent:)`` (a repeated HELLO).
  mutating func countDuplicate() { duplicates &+= 1 }
}
