/// The client's bookkeeping of commands in flight, by sequence number: who waits for which answer, which
/// commands of a batch have no waiter yet, and the results that came for those before anyone waited.
///
/// A pure value: the client stores its callers' continuations as `Waiter`s and resumes the ones this table
/// hands back, so every rule here is tested without a link or a clock.
struct CommandTable<Waiter, Outcome> {
  private var waiting: [UInt16: Waiter] = [:]
  /// Commands of a batch whose caller has not started waiting for them yet.
  private var batched: Set<UInt16> = []
  /// Results that came for batched commands before their caller waited for them.
  private var unclaimed: [UInt16: Outcome] = [:]

  /// Commands and results still tracked: zero once every caller has its result.
  var count: Int { waiting.count + batched.count + unclaimed.count }

  /// Notes commands sent as one batch: their results are kept until ``claim(_:orWait:)`` asks for them.
  mutating func beginBatch(_ sequences: some Sequence<UInt16>) { batched.formUnion(sequences) }

  /// The result already kept for `sequence` (the sequence is no longer tracked then); nil when there is
  /// none yet, in which case `waiter` now waits for it.
  mutating func claim(_ sequence: UInt16, orWait waiter: Waiter) -> Outcome? {
    if let early = unclaimed.removeValue(forKey: sequence) {
      batched.remove(sequence)
      return early
    }
    waiting[sequence] = waiter
    return nil
  }

  /// Waits for `sequence`'s result (a command outside any batch).
  mutating func wait(for sequence: UInt16, _ waiter: Waiter) { waiting[sequence] = waiter }

  /// The waiter to hand `outcome` to, if one waits; otherwise a batched command's result is kept, and any
  /// other is dropped (a second report of a sequence already answered).
  mutating func complete(_ sequence: UInt16, with outcome: Outcome) -> Waiter? {
    if let waiter = waiting.removeValue(forKey: sequence) {
      // Claimed now: a second report of the same sequence (a give-up, then the restart that follows it)
      // must not be kept for a later command that reuses the number.
      batched.remove(sequence)
      return waiter
    }
    if batched.contains(sequence) { unclaimed[sequence] = outcome }
    return nil
  }

  /// Every waiter, to be failed with `outcome`; batched commands nobody waits for yet keep `outcome` for
  /// their caller, unless a result is already kept for them.
  mutating func failAll(with outcome: Outcome) -> [Waiter] {
    let pending = waiting
    waiting.removeAll()
    batched.subtract(pending.keys)
    for sequence in batched where pending[sequence] == nil && unclaimed[sequence] == nil {
      unclaimed[sequence] = outcome
    }
    return Array(pending.values)
  }
}
