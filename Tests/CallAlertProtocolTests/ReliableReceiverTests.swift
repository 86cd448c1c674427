import CallAlertProtocol
import Testing

/// ReliableReceiver: classifies each incoming sequence as new, a replay, an idempotent repeat, a gap or stale,
/// modulo 2^16.
@Suite struct ReliableReceiverTests {
  /// A recorded answer, told apart by its payload.
  static func answer(_ tag: UInt8) -> Frame {
    Frame(flags: .response, sequence: 0, type: 0x10, nonce: 1, payload: [tag])
  }

  /// A receiver that has recorded answers for `sequences`, in order.
  static func receiver(window: Int, recorded sequences: [UInt16]) -> ReliableReceiver {
    var receiver = ReliableReceiver(window: window)
    for sequence in sequences {
      receiver.record(sequence: sequence, answer: answer(UInt8(truncatingIfNeeded: sequence)))
    }
    return receiver
  }

  @Test func firstFrameIsNewWhateverItsSequence() {
    var receiver = ReliableReceiver(window: 4)
    #expect(receiver.expected == nil)
    #expect(receiver.accept(sequence: 0xBEEF, idempotent: false) == .new)
    receiver.record(sequence: 0xBEEF, answer: nil)
    #expect(receiver.expected == 0xBEF0)
    #expect(receiver.accept(sequence: 0xBEF0, idempotent: false) == .new)
  }

  @Test func duplicateOfAnsweredFrameIsReplayed() {
    var receiver = Self.receiver(window: 4, recorded: [5, 6])
    #expect(receiver.accept(sequence: 5, idempotent: false) == .replay(Self.answer(5)))
    #expect(receiver.accept(sequence: 6, idempotent: true) == .replay(Self.answer(6)), "a kept answer wins")
    #expect(receiver.duplicates == 2)
  }

  @Test func duplicateWithoutKeptAnswerIsRepeatedOnlyWhenIdempotent() {
    var receiver = ReliableReceiver(window: 4)
    receiver.record(sequence: 5, answer: nil)
    #expect(receiver.accept(sequence: 5, idempotent: true) == .repeatIdempotent)
    #expect(receiver.accept(sequence: 5, idempotent: false) == .stale)
    #expect(receiver.duplicates == 2)
    #expect(receiver.expected == 6, "classifying changes nothing")
  }

  @Test func aheadOfTheExpectedIsAGap() {
    var receiver = Self.receiver(window: 4, recorded: [5])
    #expect(receiver.accept(sequence: 7, idempotent: false) == .gap(expected: 6))
    #expect(receiver.accept(sequence: 6 &+ 0x7FFF, idempotent: false) == .gap(expected: 6), "up to half the space")
    #expect(receiver.accept(sequence: 6 &+ 0x8000, idempotent: false) == .stale, "beyond half is behind")
    #expect(receiver.duplicates == 0, "gaps are not duplicates")
  }

  @Test func behindTheWindowIsStale() {
    var receiver = Self.receiver(window: 4, recorded: [10, 11, 12, 13])
    #expect(receiver.accept(sequence: 10, idempotent: false) == .replay(Self.answer(10)), "4 behind: in the window")
    #expect(receiver.accept(sequence: 9, idempotent: false) == .stale, "5 behind")
    #expect(receiver.accept(sequence: 9, idempotent: true) == .stale)
    #expect(receiver.duplicates == 1)
  }

  @Test func onlyTheLastWindowOfAnswersIsKept() {
    var receiver = Self.receiver(window: 2, recorded: [1, 2, 3])
    #expect(receiver.accept(sequence: 1, idempotent: false) == .stale)
    #expect(receiver.accept(sequence: 2, idempotent: false) == .replay(Self.answer(2)))
    receiver.window = 4
    #expect(
      receiver.accept(sequence: 1, idempotent: false) == .stale, "a widened window cannot replay a forgotten answer")
  }

  @Test func sequenceWrapsFromFFFFToZero() {
    var receiver = Self.receiver(window: 4, recorded: [0xFFFE, 0xFFFF])
    #expect(receiver.expected == 0)
    #expect(receiver.accept(sequence: 0, idempotent: false) == .new)
    receiver.record(sequence: 0, answer: Self.answer(0))
    #expect(receiver.accept(sequence: 0xFFFF, idempotent: false) == .replay(Self.answer(0xFF)))
    #expect(receiver.accept(sequence: 0xFFFE, idempotent: false) == .replay(Self.answer(0xFE)))
    #expect(receiver.accept(sequence: 1, idempotent: false) == .new)
    #expect(receiver.accept(sequence: 2, idempotent: false) == .gap(expected: 1))
    #expect(receiver.accept(sequence: 0xFFFA, idempotent: false) == .stale, "7 behind across the wrap")
  }

  @Test func recordingAnAnswerToARepeatChangesNothing() {
    // PROTOCOL.md §5.4: re-executing an idempotent duplicate leaves `expected` unchanged (fixed in eafb150).
    var receiver = Self.receiver(window: 4, recorded: [5, 6, 7])
    #expect(receiver.accept(sequence: 5, idempotent: true) == .replay(Self.answer(5)))
    receiver.record(sequence: 5, answer: nil)
    #expect(receiver.expected == 8)
    #expect(receiver.accept(sequence: 6, idempotent: false) == .replay(Self.answer(6)), "6 is still a duplicate")
    #expect(receiver.accept(sequence: 8, idempotent: false) == .new)
  }

  @Test func resetAcceptsAnySequenceAndForgetsAnswers() {
    var receiver = Self.receiver(window: 4, recorded: [20, 21])
    receiver.reset()
    #expect(receiver.expected == nil)
    #expect(receiver.accept(sequence: 20, idempotent: false) == .new, "not a replay any more")
    receiver.record(sequence: 3, answer: nil)
    #expect(receiver.accept(sequence: 2, idempotent: false) == .stale)
  }
}
