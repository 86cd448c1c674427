import CallAlertValues
import Foundation
import Testing

/// The path and clock helpers that stand in for `NSString` and `DateFormatter` give what those gave.
@Suite struct FoundationFreeValuesTests {
  @Test(arguments: [
    "/tmp/a/b", "/tmp/a/", "/tmp", "/", "a/b", "a//b", "///x", "", "/tmp//a", "./h.sqlite", "../x/y.sqlite",
    "~/history.sqlite",
    "/var/lib/callalert/history.sqlite",
  ])
  func folderOfAPathAsNSString(path: String) {
    #expect(PathText.deletingLastComponent(path) == (path as NSString).deletingLastPathComponent)
  }

  /// Where Foundation's `deletingLastPathComponent` has no sensible answer on Linux (it traps on a name
  /// without a slash, and makes `//` empty), the helper gives one.
  @Test func pathsFoundationHasNoAnswerFor() {
    #expect(PathText.deletingLastComponent("b") == "")
    #expect(PathText.deletingLastComponent("history.sqlite") == "")
    #expect(PathText.deletingLastComponent("//") == "/")
  }

  static let zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]
  static let instants: [Double] = [
    0, 1_763_762_400, 1_763_762_400.999, 1_774_746_000, 1_774_749_599.5, 1_792_890_000, 951_782_400,
    4_102_444_799, -1, -86_400.25, 1_703_980_800,
  ]

  @Test(arguments: zones)
  func clocksAsDateFormatter(zone: String) throws {
    let timeZone = try #require(TimeZone(identifier: zone))
    let clock = DateFormatter()
    clock.dateFormat = "HH:mm:ss"
    clock.timeZone = timeZone
    let full = DateFormatter()
    full.locale = Locale(identifier: "en_GB")
    full.dateFormat = "yyyy-MM-dd HH:mm:ss"
    full.timeZone = timeZone
    for seconds in Self.instants {
      let date = Date(timeIntervalSince1970: seconds)
      #expect(Timestamp.clock(date, timeZone: timeZone) == clock.string(from: date), "\(zone) \(seconds)")
      #expect(Timestamp.dateAndClock(date, timeZone: timeZone) == full.string(from: date), "\(zone) \(seconds)")
    }
  }
}
