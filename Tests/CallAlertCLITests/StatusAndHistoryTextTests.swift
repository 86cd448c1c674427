import CallAlertControl
import CallAlertValues
import Foundation
import Testing

@testable import callalert

/// The lines `status` and `history` print for people.
@Suite struct StatusAndHistoryTextTests {
  private func status(calls: String) throws -> StatusReport {
    let json = """
      {"calls": \(calls), "missed": [], "boards": [],
       "do_not_disturb": {"mode": "off", "active": false, "silent": false}}
      """
    return try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
  }

  /// A call without a caller and not yet on a board printed "  c1  : 29 s left on " (empty name, number and
  /// board list); the parts that are missing are now said, not left as gaps.
  @Test func aWithheldCallWaitingForABoardLeavesNoDanglingParts() throws {
    let report = try status(
      calls: """
        [{"id": "c1", "level": "active", "remaining_ms": 29500, "boards": [], "playing_on": [], "silent": false}]
        """)
    let lines = StatusText.lines(of: report)
    #expect(lines.contains("  c1 (withheld): 29 s left, waiting for a board"), "\(lines)")
  }

  /// A board says who it is: a CallAlert board its serial number, a light its device.
  @Test func aBoardSaysItsSerialAndALightItsDevice() throws {
    var report = try status(calls: "[]")
    report.boards = [
      StatusReport.Board(name: "desk", connected: true, serial: "VB-desk", link: "connected"),
      StatusReport.Board(
        name: "lamp", connected: true, link: "connected", device: "Kuando Busylight 27bb:3bcd at /dev/hidraw3"),
    ]
    let lines = StatusText.lines(of: report)
    #expect(lines.contains("board desk: connected, serial VB-desk"), "\(lines)")
    #expect(lines.contains("board lamp: connected, Kuando Busylight 27bb:3bcd at /dev/hidraw3"), "\(lines)")
  }

  /// A switch made for a while says until when, on this machine's clock: the time alone today, with the date
  /// on another day.
  @Test func doNotDisturbForAWhileSaysUntilWhen() throws {
    let utc = try #require(TimeZone(identifier: "UTC"))
    let json =
      #"{"mode":"on","configured":"off","override":"on","active":true,"silent":false,"until":"2026-11-28T07:00:00.000Z"}"#
    var dnd = try JSONDecoder().decode(StatusReport.DoNotDisturb.self, from: Data(json.utf8))
    #expect(
      StatusText.localTime(
        Date(timeIntervalSince1970: 1_795_849_200), timeZone: utc, now: Date(timeIntervalSince1970: 1_795_845_600))
        == "07:00")
    #expect(
      StatusText.localTime(
        Date(timeIntervalSince1970: 1_795_849_200), timeZone: utc, now: Date(timeIntervalSince1970: 1_795_700_000))
        == "2026-11-28 07:00")
    let line = StatusText.doNotDisturbLine(dnd, timeZone: utc)
    #expect(line.hasPrefix("do-not-disturb: on until ") && line.contains("07:00 (active now)"), "\(line)")
    dnd.until = nil
    #expect(
      StatusText.doNotDisturbLine(dnd, timeZone: utc)
        == "do-not-disturb: on (active now) (switched; the config says off)")
  }

  @Test func aNamedCallOnBoardsNamesCallerAndBoards() throws {
    let report = try status(
      calls: """
        [{"id": "c2", "name": "Alice", "caller": "+441632960961", "level": "active", "remaining_ms": 12000,
          "boards": ["desk", "bed"], "playing_on": ["desk", "bed"], "silent": false}]
        """)
    #expect(StatusText.lines(of: report).contains("  c2 Alice +441632960961: 12 s left on desk, bed"))
  }

  /// A call's source (the call budget's) is said after its boards.
  @Test func aCallNamesItsSource() throws {
    let report = try status(
      calls: """
        [{"id": "m1", "level": "active", "remaining_ms": 12000, "boards": ["desk"], "playing_on": ["desk"],
          "silent": false, "source": "mqtt"}]
        """)
    #expect(StatusText.lines(of: report).contains("  m1 (withheld): 12 s left on desk, from mqtt"))
  }

  /// A refusal row in the history: the count and the source are in its reason.
  @Test func historyShowsARefusalRow() {
    let dates = DateFormatter()
    dates.dateFormat = "yyyy-MM-dd HH:mm:ss"
    dates.timeZone = TimeZone(identifier: "UTC")
    let call = CallRecord(
      id: "refused:mqtt:f33", receivedAt: Date(timeIntervalSince1970: 1_800_000_000), outcome: .refused,
      reason: "too-many-calls: 523 calls from mqtt")
    let line = HistoryPrinter.line(call, dates: dates)
    #expect(line.hasSuffix("refused:mqtt:f33  withheld  refused (too-many-calls: 523 calls from mqtt)"), "\(line)")
  }

  /// "answered (answered)": the reason repeated the outcome. It is shown only when it says more.
  @Test func historyShowsTheReasonOnlyWhenItSaysMoreThanTheOutcome() {
    let dates = DateFormatter()
    dates.dateFormat = "yyyy-MM-dd HH:mm:ss"
    dates.timeZone = TimeZone(identifier: "UTC")
    let received = Date(timeIntervalSince1970: 1_800_000_000)
    var call = CallRecord(
      id: "c1", callerNumber: "+441632960961", receivedAt: received, outcome: .answered, reason: "answered")
    let answered = HistoryPrinter.line(call, dates: dates)
    #expect(!answered.contains("(answered)"), "\(answered)")
    #expect(answered.hasSuffix("c1  +441632960961  answered"), "\(answered)")
    call.outcome = .missed
    call.reason = "cap"
    call.missed = true
    #expect(HistoryPrinter.line(call, dates: dates).hasSuffix("missed (cap), missed"))
  }
}
