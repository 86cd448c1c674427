import Foundation
import Testing

@testable import CallAlertEngine

/// Quiet-hours windows in local wall time: boundaries, midnight, weekdays and daylight-saving changes.
@Suite struct QuietHoursTests {
  /// A moment written with its UTC offset, e.g. "2026-03-29T06:59:00+02:00".
  static func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)!
  }

  /// A window from "HH:MM" to "HH:MM" on `weekdays` (1 = Sunday ... 7 = Saturday).
  static func window(_ weekdays: Set<Int>, _ start: String, _ end: String) -> QuietHoursWindow {
    func minute(_ text: String) -> Int {
      let parts = text.split(separator: ":").map { Int($0)! }
      return parts[0] * 60 + parts[1]
    }
    return QuietHoursWindow(weekdays: weekdays, startMinute: minute(start), endMinute: minute(end))
  }

  /// (window, time zone, moment, whether it is quiet).
  static let cases: [(QuietHoursWindow, String, String, Bool)] = [
    // Boundaries: start included, end excluded. 2026-06-01 is a Monday (2).
    (window([2], "09:00", "17:00"), "UTC", "2026-06-01T09:00:00Z", true),
    (window([2], "09:00", "17:00"), "UTC", "2026-06-01T08:59:59Z", false),
    (window([2], "09:00", "17:00"), "UTC", "2026-06-01T16:59:59Z", true),
    (window([2], "09:00", "17:00"), "UTC", "2026-06-01T17:00:00Z", false),
    (window([3], "09:00", "17:00"), "UTC", "2026-06-01T12:00:00Z", false),
    // Midnight: a window ending at 00:00 ends the next day; one starting at 00:00 starts on its day.
    (window([2], "23:00", "00:00"), "UTC", "2026-06-01T23:59:59Z", true),
    (window([2], "23:00", "00:00"), "UTC", "2026-06-02T00:00:00Z", false),
    (window([3], "00:00", "06:00"), "UTC", "2026-06-02T00:00:00Z", true),
    (window([3], "00:00", "06:00"), "UTC", "2026-06-01T23:59:59Z", false),
    // Overnight windows belong to the day they start: Friday 22:00-07:00 covers Saturday 06:59, not
    // Saturday 22:00. 2026-06-05 is a Friday (6).
    (window([6], "22:00", "07:00"), "UTC", "2026-06-05T22:00:00Z", true),
    (window([6], "22:00", "07:00"), "UTC", "2026-06-06T06:59:00Z", true),
    (window([6], "22:00", "07:00"), "UTC", "2026-06-06T07:00:00Z", false),
    (window([6], "22:00", "07:00"), "UTC", "2026-06-06T22:00:00Z", false),
    (window([6], "22:00", "07:00"), "UTC", "2026-06-05T06:59:00Z", false),
    // Saturday night into Sunday: the week wraps (7 -> 1).
    (window([7], "22:00", "07:00"), "UTC", "2026-06-07T06:59:00Z", true),
    (window([1], "22:00", "07:00"), "UTC", "2026-06-07T06:59:00Z", false),
    // End equal to start: 24 hours from the start.
    (window([2], "09:00", "09:00"), "UTC", "2026-06-01T08:59:00Z", false),
    (window([2], "09:00", "09:00"), "UTC", "2026-06-01T09:00:00Z", true),
    (window([2], "09:00", "09:00"), "UTC", "2026-06-02T08:59:00Z", true),
    (window([2], "09:00", "09:00"), "UTC", "2026-06-02T09:00:00Z", false),
    (window(Set(1...7), "00:00", "00:00"), "UTC", "2026-06-03T15:00:00Z", true),
    // Read in the configured zone, not UTC: 23:30 UTC Monday is 01:30 Tuesday in Berlin (summer).
    (window([3], "01:00", "02:00"), "Europe/Berlin", "2026-06-01T23:30:00Z", true),
    (window([3], "01:00", "02:00"), "UTC", "2026-06-01T23:30:00Z", false),
    // Berlin springs forward on Sunday 2026-03-29 at 02:00 CET to 03:00 CEST. Saturday 22:00-07:00 keeps its
    // local times, so the night is an hour shorter.
    (window([7], "22:00", "07:00"), "Europe/Berlin", "2026-03-28T21:59:00+01:00", false),
    (window([7], "22:00", "07:00"), "Europe/Berlin", "2026-03-28T22:00:00+01:00", true),
    (window([7], "22:00", "07:00"), "Europe/Berlin", "2026-03-29T01:59:00+01:00", true),
    (window([7], "22:00", "07:00"), "Europe/Berlin", "2026-03-29T03:00:00+02:00", true),
    (window([7], "22:00", "07:00"), "Europe/Berlin", "2026-03-29T06:59:00+02:00", true),
    (window([7], "22:00", "07:00"), "Europe/Berlin", "2026-03-29T07:00:00+02:00", false),
    (window([7], "22:00", "07:00"), "Europe/Berlin", "2026-03-29T05:30:00Z", false),  // 07:30 CEST
    // A window inside the skipped hour covers what is left of it: 03:00 CEST is minute 180.
    (window([1], "02:30", "03:30"), "Europe/Berlin", "2026-03-29T01:59:00+01:00", false),
    (window([1], "02:30", "03:30"), "Europe/Berlin", "2026-03-29T03:00:00+02:00", true),
    (window([1], "02:30", "03:30"), "Europe/Berlin", "2026-03-29T03:30:00+02:00", false),
    // New York springs forward on Sunday 2026-03-08 at 02:00 EST to 03:00 EDT.
    (window([7], "23:00", "06:00"), "America/New_York", "2026-03-08T01:59:00-05:00", true),
    (window([7], "23:00", "06:00"), "America/New_York", "2026-03-08T03:00:00-04:00", true),
    (window([7], "23:00", "06:00"), "America/New_York", "2026-03-08T05:59:00-04:00", true),
    (window([7], "23:00", "06:00"), "America/New_York", "2026-03-08T06:00:00-04:00", false),
    (window([7], "23:00", "06:00"), "America/New_York", "2026-03-08T10:30:00Z", false),  // 06:30 EDT
    // ...and falls back on Sunday 2026-11-01 at 02:00 EDT to 01:00 EST: 01:15 happens twice, quiet both times.
    (window([1], "01:00", "01:30"), "America/New_York", "2026-11-01T01:15:00-04:00", true),
    (window([1], "01:00", "01:30"), "America/New_York", "2026-11-01T01:15:00-05:00", true),
    (window([1], "01:00", "01:30"), "America/New_York", "2026-11-01T01:30:00-05:00", false),
    (window([1], "01:00", "01:30"), "America/New_York", "2026-11-01T00:59:00-04:00", false),
  ]

  @Test(arguments: cases)
  func windowsCoverLocalTime(window: QuietHoursWindow, zone: String, moment: String, quiet: Bool) throws {
    let timeZone = try #require(TimeZone(identifier: zone))
    #expect(QuietHours(windows: [window], timeZone: timeZone).contains(Self.instant(moment)) == quiet)
  }

  @Test func noWindowsNeverQuiet() {
    #expect(!QuietHours(windows: [], timeZone: utc).contains(Self.instant("2026-06-01T12:00:00Z")))
  }

  @Test func anyOfSeveralWindows() {
    let hours = QuietHours(
      windows: [Self.window([2], "01:00", "02:00"), Self.window([2], "12:00", "13:00")], timeZone: utc)
    #expect(hours.contains(Self.instant("2026-06-01T12:30:00Z")))
    #expect(!hours.contains(Self.instant("2026-06-01T11:30:00Z")))
  }

  /// (weekday, minute of day, covered) for Friday 22:00-07:00.
  static let covers: [(Int, Int, Bool)] = [
    (6, 1_319, false), (6, 1_320, true), (6, 1_439, true), (7, 0, true), (7, 419, true), (7, 420, false),
    (7, 1_320, false), (1, 0, false),
  ]

  @Test(arguments: covers)
  func coversMinutesOfTheDay(weekday: Int, minute: Int, covered: Bool) {
    #expect(Self.window([6], "22:00", "07:00").covers(weekday: weekday, minuteOfDay: minute) == covered)
  }
}
