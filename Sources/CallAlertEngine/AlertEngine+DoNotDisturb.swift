#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// When a do-not-disturb switch made until a time ends: the wall-clock moment it was made for, and the same
/// moment on the monotonic clock, measured when it was made. Whichever comes first ends it: the monotonic one
/// keeps its length when the wall clock is set back, the wall-clock one keeps its moment when the wall clock
/// is set forward (a machine that slept, a clock corrected at boot).
struct DoNotDisturbExpiry: Equatable, Sendable {
  let until: Date
  let monotonicMs: UInt64

  init(until: Date, from now: EngineTime) {
    self.until = until
    let seconds = until.timeIntervalSince(now.wall)
    let ms = seconds > 0 ? UInt64(min(seconds * 1_000, Double(UInt64.max / 2)).rounded(.up)) : 0
    monotonicMs = now.monotonicMs.saturatingAdd(ms)
  }

  func isDue(at now: EngineTime) -> Bool { now.monotonicMs >= monotonicMs || now.wall >= until }
}

extension AlertEngine {
  /// Ends a do-not-disturb switch made until a time once that time has come: the configured mode applies again.
  /// Calls already ringing or held back stay as they are, as with any switch.
  mutating func endDoNotDisturbIfDue(at now: EngineTime, into effects: inout [EngineEffect]) {
    guard let expiry = doNotDisturbExpiry, expiry.isDue(at: now) else { return }
    let mode = doNotDisturbOverride ?? configuration.doNotDisturb.mode
    doNotDisturbOverride = nil
    doNotDisturbExpiry = nil
    effects.append(.event(.doNotDisturbEnded(mode: mode, until: expiry.until)))
  }
}
