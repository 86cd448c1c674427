#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Decides whether do-not-disturb holds a call back, after the best phones: critical calls always ring;
/// allowed callers, repeated callers and (when allowed) time-sensitive calls break through.
struct DoNotDisturbPolicy: Sendable {
  /// The configured behaviour.
  var configuration: DoNotDisturbConfiguration
  /// The mode switched at run time (`callalert dnd on`), which wins over the configured one.
  var override: DoNotDisturbMode?
  /// The region national numbers in `allowedCallers` belong to.
  var defaultRegion: String

  /// The mode in force: the switched one, else the configured one.
  var mode: DoNotDisturbMode { override ?? configuration.mode }

  /// Whether do-not-disturb holds calls back at `wall`.
  func isActive(at wall: Date) -> Bool {
    switch mode {
    case .off: false
    case .on: true
    case .scheduled: QuietHours(windows: configuration.schedule, timeZone: configuration.timeZone).contains(wall)
    }
  }

  /// Whether a call breaks through an active do-not-disturb. `number` is the caller's E.164 number (nil when
  /// withheld, which is never an allowed caller); `isRepeatedCaller` says the same number called within the
  /// repeated-caller window.
  func breaksThrough(level: InterruptionLevel, number: String?, isRepeatedCaller: Bool) -> Bool {
    switch level {
    case .critical: return true
    case .timeSensitive where configuration.allowTimeSensitive: return true
    case .passive: return false
    case .active, .timeSensitive: break
    }
    if isRepeatedCaller { return true }
    guard let number else { return false }
    return configuration.allowedCallers.contains { PhoneNumber.e164($0, defaultRegion: defaultRegion) == number }
  }
}
