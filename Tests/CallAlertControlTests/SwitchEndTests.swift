import CallAlertControl
import CallAlertEngine
import CallAlertInputs
import CallAlertValues
import Foundation
import Testing

/// Do-not-disturb for a while: the times people give (`07:00`, `90m`) and what only the moment of arrival can
/// refuse (an end already past, or years ahead).
@Suite struct SwitchEndTests {
  /// 2026-11-27T22:30:00Z: 23:30 in Berlin.
  static let now = Date(timeIntervalSince1970: 1_795_818_600)
  static let berlin = TimeZone(identifier: "Europe/Berlin")!

  @Test(arguments: [
    ("07:00", "2026-11-28T06:00:00.000Z"),  // tomorrow: today's has passed
    ("23:45", "2026-11-27T22:45:00.000Z"),  // later today
    ("23:30", "2026-11-28T22:30:00.000Z"),  // now is not after now: tomorrow's
    ("7:05", "2026-11-28T06:05:00.000Z"),
    ("2026-11-29T08:00:00Z", "2026-11-29T08:00:00.000Z"),
  ])
  func untilAClockTimeIsItsNextOccurrenceInTheZone(text: String, expected: String) {
    #expect(SwitchEnd.until(text, after: Self.now, timeZone: Self.berlin).map(Timestamp.iso8601) == expected)
  }

  @Test(arguments: ["24:00", "07:60", "7", "1795845600", "07:00:00:00", "", "soon", "-1:00"])
  func whatIsNoTimeIsNil(text: String) {
    #expect(SwitchEnd.until(text, after: Self.now, timeZone: Self.berlin) == nil)
  }

  @Test func forADurationIsFromNow() {
    #expect(SwitchEnd.for("90m", after: Self.now) == Self.now.addingTimeInterval(5_400))
    #expect(SwitchEnd.for("1.5h", after: Self.now) == Self.now.addingTimeInterval(5_400))
    #expect(SwitchEnd.for("0s", after: Self.now) == nil)
    #expect(SwitchEnd.for("a while", after: Self.now) == nil)
  }

  @Test func anEndAlreadyPastOrMoreThanThirtyDaysAheadIsRefusedWithItsPlace() throws {
    let past = ControlRequest.input(.setDoNotDisturb(.on, until: Self.now.addingTimeInterval(-1)))
    let failure = try #require(past.problem(at: Self.now, place: "socket#2:1"))
    #expect(failure.field == "until" && failure.location == "socket#2:1")
    #expect(failure.error.hasPrefix("socket#2:1: until: 2026-11-27T22:29:59.000Z is not after now"))
    let far = ControlRequest.input(.setDoNotDisturb(.on, until: Self.now.addingTimeInterval(31 * 86_400)))
    #expect(far.problem(at: Self.now, place: "body")?.message?.contains("more than 30 days ahead") == true)
    let fine = ControlRequest.input(.setDoNotDisturb(.on, until: Self.now.addingTimeInterval(3_600)))
    #expect(fine.problem(at: Self.now, place: "body") == nil)
    #expect(ControlRequest.input(.setDoNotDisturb(.on)).problem(at: Self.now, place: "body") == nil)
  }
}
