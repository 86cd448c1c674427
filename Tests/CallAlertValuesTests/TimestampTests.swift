import CallAlertValues
import Foundation
import Testing

@Suite struct TimestampTests {
  @Test(arguments: [
    ("1763762400", 1_763_762_400.0), ("1763762400.5", 1_763_762_400.5), ("1763762400250", 1_763_762_400.25),
    ("99999999999", 99_999_999_999.0), ("100000000000", 100_000_000.0), ("1", 1.0),
  ])
  func numbersAreSecondsOrMillisecondsByMagnitude(text: String, seconds: Double) {
    #expect(Timestamp.date(number: text) == Date(timeIntervalSince1970: seconds))
  }

  @Test(arguments: ["0", "-5", "100000000000000", "abc", "nan", "inf"])
  func numbersThatAreNotTimes(text: String) {
    #expect(Timestamp.date(number: text) == nil)
  }

  @Test(arguments: [
    ("2025-11-21T22:00:00Z", 1_763_762_400.0), ("2025-11-21T23:00:00+01:00", 1_763_762_400.0),
    ("2025-11-21T17:00:00-0500", 1_763_762_400.0), ("2025-11-21T22:00:00.250Z", 1_763_762_400.25),
    ("2025-11-21 22:00:00z", 1_763_762_400.0), ("2025-11-21T22:00Z", 1_763_762_400.0),
    ("2025-11-21T23:30:00+01:30", 1_763_762_400.0), ("2024-02-29T00:00:00Z", 1_709_164_800.0),
    ("1970-01-01T00:00:00Z", 0.0), ("1763762400", 1_763_762_400.0), ("1763762400250", 1_763_762_400.25),
    ("2025-11-21T22:00:00+01", 1_763_758_800.0),
  ])
  func textTimes(text: String, seconds: Double) throws {
    let date = try #require(Timestamp.date(text: text))
    #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_5)
  }

  @Test(arguments: [
    "2025-11-21T22:00:00", "2025-11-21", "2025-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2025-11-31T00:00:00Z",
    "2025-11-21T24:00:00Z", "2025-11-21T22:60:00Z", "2025-11-21T22:00:00.Z", "2025-11-21T22:00:00+25:00",
    "21/11/2025 22:00", "yesterday", "", "2025-11-21T22:00:00Zjunk",
  ])
  func textsThatAreNotTimes(text: String) {
    #expect(Timestamp.date(text: text) == nil)
  }

  @Test(arguments: [
    (1_763_762_400.0, "2025-11-21T22:00:00.000Z"), (1_763_762_401.25, "2025-11-21T22:00:01.250Z"),
    (0.0, "1970-01-01T00:00:00.000Z"), (1_709_164_799.5, "2024-02-28T23:59:59.500Z"),
    (-1.5, "1969-12-31T23:59:58.500Z"), (4_102_444_800.0, "2100-01-01T00:00:00.000Z"),
  ])
  func writtenAsUTCWithMilliseconds(seconds: Double, text: String) {
    #expect(Timestamp.iso8601(Date(timeIntervalSince1970: seconds)) == text)
  }

  @Test(arguments: [0.0, 951_782_400.0, 1_763_762_400.123, 4_107_542_400.0])
  func writingThenReadingIsTheSameMillisecond(seconds: Double) throws {
    let date = Date(timeIntervalSince1970: seconds)
    let back = try #require(Timestamp.date(text: Timestamp.iso8601(date)))
    #expect(abs(back.timeIntervalSince1970 - seconds) < 0.001)
  }
}
