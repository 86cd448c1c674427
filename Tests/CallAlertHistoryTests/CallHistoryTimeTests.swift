import CallAlertValues
import Foundation
import GRDB
import Testing

@testable import CallAlertHistory

/// The history writes its times itself: the text is the one GRDB's own `Date` conversion writes (and reads back),
/// so rows written before and after sort, compare and read the same.
@Suite struct CallHistoryTimeTests {
  private static func grdbText(_ date: Date) throws -> String {
    try #require(String.fromDatabaseValue(date.databaseValue))
  }

  @Test(arguments: [
    0, 0.0005, 0.001, 0.999, 0.9999, 59.9996, 951_782_400.5, 1_763_762_400.25, 1_764_201_600.999_9, 4_102_444_799.999,
    -0.25, -86_400.5,
  ])
  func theTextIsGRDBsOwn(seconds: Double) throws {
    let date = Date(timeIntervalSince1970: seconds)
    #expect(CallHistory.text(date) == (try Self.grdbText(date)))
  }

  @Test func theTextIsGRDBsOwnOverYearsOfMilliseconds() throws {
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    for _ in 0..<5_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      // 2000 to 2100, with sub-millisecond parts, as `Date()` has.
      let seconds = 946_684_800 + Double(state >> 32) / Double(UInt32.max) * 3_155_760_000
      let date = Date(timeIntervalSince1970: seconds)
      #expect(CallHistory.text(date) == (try Self.grdbText(date)), "\(seconds)")
    }
  }

  @Test func theTextReadsBackToTheMillisecond() throws {
    let date = Date(timeIntervalSince1970: 1_764_201_600.123_4)
    let back = try #require(Date.fromDatabaseValue(CallHistory.text(date).databaseValue))
    #expect(abs(back.timeIntervalSince1970 - 1_764_201_600.123) < 0.000_001)
    #expect(CallHistory.text(nil as Date?) == nil)
  }
}
