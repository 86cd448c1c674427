import Foundation
import Testing

@testable import CallAlertHistory

/// The stamp in a set-aside file's name reads as a `Calendar` in UTC read the date.
@Suite struct CallHistoryStampTests {
  @Test(arguments: [0, 951_782_400, 1_763_762_400, 1_763_762_400.999, 1_709_164_799.5, 4_102_444_799])
  func stampsAsTheCalendarInUTC(seconds: Double) throws {
    let date = Date(timeIntervalSince1970: seconds)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
    let expected =
      "\(parts.year ?? 0)\(two(parts.month))\(two(parts.day))T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z"
    #expect(CallHistoryFiles.stamp(date) == expected)
  }
}
