#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The fair call budget: each source its share of the active calls, room always for `critical` and local
/// calls, and refusals summed per source and minute.
extension AlertEngine {
  /// Active calls from one source, and the moments refusals were counted.
  struct RefusalWindow: Equatable, Sendable {
    /// When the window opened (monotonic ms); it ends ``AlertEngine/refusalIntervalMs`` later.
    var openedMs: UInt64
    /// Refusals counted since, not yet reported.
    var count = 0
    /// The first of them.
    var first: IncomingCall?
    /// When the first of them came (wall clock).
    var since: Date?
  }

  /// Whether `call` may ring: true when its source is within its share and the budget has room, or when a
  /// `critical` or local call made room by displacing another (the displaced call is stopped and missed,
  /// ``StopReason/displaced``); false when it is to be refused.
  ///
  /// Which call gives way: when the call's own source has used its share, one of that source's calls (a
  /// source never takes more than its share); otherwise one of the busiest source's (the most active calls;
  /// of two as busy, the one whose oldest call came first). Of that source's calls, the least urgent, and of
  /// those the oldest, so a `critical` call is displaced only by another from a source full of them.
  mutating func makeRoom(for call: IncomingCall, at now: EngineTime, into effects: inout [EngineEffect]) -> Bool {
    let source = call.budgetSource
    let own = calls.count(where: { $0.call.budgetSource == source })
    let ownFull = own >= Self.maximumActiveCallsPerSource
    guard ownFull || calls.count >= Self.maximumActiveCalls else { return true }
    guard call.level == .critical || source.isLocal else { return false }
    guard let victimSource = ownFull ? source : busiestSource, let index = displaceable(from: victimSource) else {
      return false
    }
    let displaced = calls.remove(at: index)
    finish(displaced.id, atMs: now.monotonicMs)
    effects.append(.event(.stopped(callID: displaced.id, reason: .displaced)))
    addMissed(displaced.call, reason: .displaced, into: &effects)
    // The displaced call's boards are reconciled with the new call's, after it is added: one PLAY, not a
    // STOP and a PLAY.
    return true
  }

  /// The source with the most active calls; of two as busy, the one whose oldest call came first.
  var busiestSource: CallSource? {
    var counts: [CallSource: (count: Int, oldest: UInt64)] = [:]
    for call in calls {
      let source = call.call.budgetSource
      let entry = counts[source] ?? (0, call.sequence)
      counts[source] = (entry.count + 1, min(entry.oldest, call.sequence))
    }
    return counts.max { lhs, rhs in
      lhs.value.count != rhs.value.count ? lhs.value.count < rhs.value.count : lhs.value.oldest > rhs.value.oldest
    }?.key
  }

  /// The index of `source`'s call to displace: its least urgent, and of those the oldest.
  func displaceable(from source: CallSource) -> Int? {
    calls.indices.filter { calls[$0].call.budgetSource == source }.min { lhs, rhs in
      let left = calls[lhs]
      let right = calls[rhs]
      return left.call.level != right.call.level ? left.call.level < right.call.level : left.sequence < right.sequence
    }
  }

  /// Counts a refusal of `call`: the first from its source after a quiet interval is reported at once, the
  /// rest when the interval ends (``summarizeRefusals(at:into:)``).
  mutating func countRefusal(of call: IncomingCall, at now: EngineTime, into effects: inout [EngineEffect]) {
    let source = call.budgetSource
    guard var window = refusals[source] else {
      refusals[source] = RefusalWindow(openedMs: now.monotonicMs)
      effects.append(.event(.callsRefused(source: source, count: 1, first: call, since: now.wall)))
      return
    }
    window.count += 1
    if window.first == nil {
      window.first = call
      window.since = now.wall
    }
    refusals[source] = window
  }

  /// Reports the refusals of every interval that ended by `now`, one event per source, in the sources'
  /// order; a source with none in its interval is forgotten (its next refusal is reported at once again).
  mutating func summarizeRefusals(at now: EngineTime, into effects: inout [EngineEffect]) {
    guard let next = nextRefusalSummaryMs, next <= now.monotonicMs else { return }
    for source in refusals.keys.sorted() {
      guard let window = refusals[source], window.openedMs.saturatingAdd(Self.refusalIntervalMs) <= now.monotonicMs
      else { continue }
      if let first = window.first, let since = window.since, window.count > 0 {
        effects.append(.event(.callsRefused(source: source, count: window.count, first: first, since: since)))
        // A new interval from the end of this one: a steady flood gives one event a minute.
        refusals[source] = RefusalWindow(openedMs: window.openedMs.saturatingAdd(Self.refusalIntervalMs))
      } else {
        refusals[source] = nil
      }
    }
  }

  /// When the next interval of refusals ends; nil when none are being counted.
  var nextRefusalSummaryMs: UInt64? {
    refusals.values.map { $0.openedMs.saturatingAdd(Self.refusalIntervalMs) }.min()
  }
}
