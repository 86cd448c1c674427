/// The client's bookkeeping of its callers' requests, by key (a request's number): who waits for which answer, which
/// commands of a batch have no waiter yet, and the results that came for those before anyone waited.
///
/// A pure value: the client stores its callers' continuations as `Waiter`s and resumes the ones this table
/// hands back, so every rule here is tested without a link or a clock.
struct CommandTable<Key: Hashable, Waiter, Outcome> {
  private var waiting: [Key: Waiter] = [:]
  /// Commands of a batch whose caller has not started waiting for them yet.
  private var batched: Set<Key> = []
  /// Results that came for batched commands before their caller waited for them.
  private var unclaimed: [Key: Outcome] = [:]

  /// Commands and results still tracked: zero once every caller has its result.
  var count: Int { waiting.count + batched.count + unclaimed.count }

  /// Notes commands sent as one batch: their results are kept until ``claim(_:orWait:)`` asks for them.
  mutating func beginBatch(_ keys: some Sequence<Key>) { batched.formUnion(keys) }

  /// The result already kept for `key` (the key is no longer tracked then); nil when there is
  /// none yet, in which case `waiter` now waits for it.
  mutating func claim(_ key: Key, orWait waiter: Waiter) -> Outcome? {
    if let early = unclaimed.removeValue(forKey: key) {
      batched.remove(key)
      return early
    }
    waiting[key] = waiter
    return nil
  }

  /// Waits for `key`'s result (a command outside any batch).
  mutating func wait(for key: Key, _ waiter: Waiter) { waiting[key] = waiter }

  /// The waiter to hand `outcome` to, if one waits; otherwise a batched command's result is kept, and any
  /// other is dropped (a second report of a key already answered).
  mutating func complete(_ key: Key, with outcome: Outcome) -> Waiter? {
    if let waiter = waiting.removeValue(forKey: key) {
      // Claimed now: a second report of the same key (a give-up, then the restart that follows it)
      // must not be kept for a later command that reuses the number.
      batched.remove(key)
      return waiter
    }
    if batched.contains(key) { unclaimed[key] = outcome }
    return nil
  }

  /// Every waiter, to be failed with `outcome`; batched commands nobody waits for yet keep `outcome` for
  /// their caller, unless a result is already kept for them.
  mutating func failAll(with outcome: Outcome) -> [Waiter] {
    let pending = waiting
    waiting.removeAll()
    batched.subtract(pending.keys)
    for key in batched where pending[key] == nil && unclaimed[key] == nil {
      unclaimed[key] = outcome
    }
    return Array(pending.values)
  }
}
