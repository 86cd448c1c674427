import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// When a do-not-disturb switch made for a while ends, as people say it: until a clock time (`07:00`, the next
/// time the clock shows it, in a given time zone), until a moment (ISO 8601 with a zone; not Unix time, which a
/// person does not type: `7` would be 1970),
/// or for a duration (`90m`, `1h`, `1.5h`, as the config's durations). Used by `callalert notify dnd` and the
/// page; the control socket and the API take the moment itself.
package enum SwitchEnd {
  /// What ``until(_:after:timeZone:)`` reads, for messages.
  package static let expectedUntil = "a clock time such as 07:00, or ISO 8601 such as 2026-11-28T07:00:00+01:00"
  /// What ``for(_:after:)`` reads, for messages.
  package static let expectedFor = "a duration above zero such as 90m, 1h or 1.5h"

  /// The moment `text` names: `HH:MM` is its next occurrence after `now` in `timeZone` (tomorrow's when today's
  /// has passed), anything else ISO 8601 with a zone. Nil when it names none.
  package static func until(_ text: String, after now: Date, timeZone: TimeZone) -> Date? {
    let trimmed = text.trimmingWhitespace()
    let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
    if parts.count == 2, parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
      let hour = Int(parts[0]), let minute = Int(parts[1])
    {
      guard (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = timeZone
      return calendar.nextDate(
        after: now, matching: DateComponents(hour: hour, minute: minute, second: 0), matchingPolicy: .nextTime)
    }
    return Timestamp.iso8601(trimmed)
  }

  /// `now` plus the duration `text` names; nil when it names none, or names none at all (0).
  package static func `for`(_ text: String, after now: Date) -> Date? {
    guard let ms = Durations.milliseconds(text), ms > 0 else { return nil }
    return now.addingTimeInterval(Double(ms) / 1_000)
  }
}
