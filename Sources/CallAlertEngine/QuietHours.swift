#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Quiet-hours windows read in a time zone: whether a moment falls inside one.
///
/// Windows are wall-clock times ("22:00 to 07:00"), so they are read in local time: the minute of the day
/// and the weekday come from a Gregorian calendar in the configured zone. Across a daylight-saving change a
/// window therefore keeps its local times: on the spring-forward night 22:00-07:00 is an hour shorter, and a
/// local time that happens twice in autumn is inside the window both times.
public struct QuietHours: Sendable {
  /// The windows; a moment inside any of them is quiet.
  public var windows: [QuietHoursWindow]
  /// The calendar the windows are read in (Gregorian, in the configured time zone).
  public let calendar: Calendar

  /// Creates the schedule for `windows` in `timeZone`.
  public init(windows: [QuietHoursWindow], timeZone: TimeZone) {
    self.windows = windows
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    self.calendar = calendar
  }

  /// Whether `date` falls inside a window.
  public func contains(_ date: Date) -> Bool {
    guard !windows.isEmpty else { return false }
    let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
    guard let weekday = parts.weekday, let hour = parts.hour, let minute = parts.minute else { return false }
    return windows.contains { $0.covers(weekday: weekday, minuteOfDay: hour * 60 + minute) }
  }
}

extension QuietHoursWindow {
  /// Whether the window covers `minuteOfDay` (0-1439) on `weekday` (1 = Sunday ... 7 = Saturday).
  ///
  /// A window whose end is not after its start runs past midnight and belongs to the day it starts on: a
  /// Friday 22:00-07:00 window covers Saturday 06:59 because Friday is listed, and Saturday 22:00 only if
  /// Saturday is. An end equal to the start makes a 24-hour window.
  public func covers(weekday: Int, minuteOfDay: Int) -> Bool {
    if endMinute > startMinute {
      return weekdays.contains(weekday) && minuteOfDay >= startMinute && minuteOfDay < endMinute
    }
    let previousDay = weekday == 1 ? 7 : weekday - 1
    return (weekdays.contains(weekday) && minuteOfDay >= startMinute)
      || (weekdays.contains(previousDay) && minuteOfDay < endMinute)
  }
}
