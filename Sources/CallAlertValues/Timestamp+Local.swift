#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension Timestamp {
  /// `21:22:00`: the time of day of `date` in `timeZone`, as a `DateFormatter` with `HH:mm:ss` wrote it
  /// (seconds cut, not rounded), in ASCII digits whatever the locale.
  package static func clock(_ date: Date, timeZone: TimeZone) -> String {
    let (_, secondOfDay) = local(date, timeZone)
    return "\(pad(secondOfDay / 3_600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
  }

  /// `2026-11-23 21:22:00`: the date and time of day of `date` in `timeZone`, as a `DateFormatter` with
  /// `yyyy-MM-dd HH:mm:ss` wrote it.
  package static func dateAndClock(_ date: Date, timeZone: TimeZone) -> String {
    let (days, _) = local(date, timeZone)
    let (year, month, day) = civilFromDays(days)
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) " + clock(date, timeZone: timeZone)
  }

  /// Days since 1970-01-01 and the second of that day, on the wall clock of `timeZone` at `date`.
  private static func local(_ date: Date, _ timeZone: TimeZone) -> (days: Int, secondOfDay: Int) {
    let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
    var days = seconds / 86_400
    var secondOfDay = seconds % 86_400
    if secondOfDay < 0 {
      secondOfDay += 86_400
      days -= 1
    }
    return (days, secondOfDay)
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }
}
