import CallAlertControl
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// Answers are typed values written to a line only at the edge, and read back to the same value.
@Suite struct ControlResponseTests {
  @Test func okIsOneObject() {
    #expect(ControlResponse.ok.line == #"{"ok":true}"#)
  }

  @Test func failuresCarryTheErrorAndItsParts() throws {
    let error = InputError(location: "socket:1:34", field: "level", message: #""urgent" is not one of passive, active"#)
    let line = ControlResponse.failure(error).line
    #expect(
      line
        == #"{"ok":false,"error":"socket:1:34: level: \"urgent\" is not one of passive, active","#
        + #""location":"socket:1:34","field":"level","message":"\"urgent\" is not one of passive, active"}"#
    )
    let withoutField = ControlResponse.failure(InputError(location: "socket:1:1", message: "empty line")).line
    #expect(
      withoutField == #"{"ok":false,"error":"socket:1:1: empty line","location":"socket:1:1","message":"empty line"}"#)
    #expect(ControlResponse.failure("history: disk full\n").line == #"{"ok":false,"error":"history: disk full\n"}"#)
  }

  /// Every answer is one line of valid JSON whatever the text holds, and reads back to itself.
  @Test(arguments: ["plain", "quote \" backslash \\", "new\nline", "\u{0}\u{1F}", "é 📞", "\u{2028}", "/run/a.sock"])
  func answersAreOneLineOfJSON(text: String) throws {
    for response in [
      ControlResponse.failure(text), .failure(InputError(location: text, field: text, message: text)),
      .outcome(RequestOutcome(.ignored, callID: text, boards: [text], reason: text)),
    ] {
      #expect(!response.line.contains("\n"))
      #expect(try ControlResponse(line: response.line) == response)
    }
  }

  static let record = CallRecord(
    id: "c1", callerNumber: "+4930123", callerName: "Alice",
    receivedAt: Date(timeIntervalSince1970: 1_795_298_400.25), outcome: .missed, boards: ["desk"], missed: true)

  /// A history answer: whole, it is ok; with records pending it is never ok but still carries the calls.
  @Test func historyAnswersReadBack() throws {
    let whole = ControlResponse.history(calls: [Self.record], problem: nil)
    #expect(whole.line.hasPrefix(#"{"ok":true,"calls":[{"#))
    #expect(whole.line.contains(#""2026-11-21T22:00:00.250Z""#))
    #expect(try ControlResponse(line: whole.line) == whole)
    let health = HistoryHealth(state: .degraded, path: "/h.sqlite", pending: 3, lost: 0, error: "disk full")
    let partial = ControlResponse.history(
      calls: [Self.record], problem: HistoryProblem(error: health.summary, health: health))
    #expect(partial.line.hasPrefix(#"{"ok":false,"error":"history degraded (disk full): 3 write(s) pending"#))
    #expect(!partial.isSuccess)
    #expect(try ControlResponse(line: partial.line) == partial)
  }

  @Test func aLineThatIsNoAnswerIsAFailureNamingIt() {
    #expect(throws: ControlFailure.self) { try ControlResponse(line: "not json") }
    #expect(throws: ControlFailure.self) { try ControlResponse(line: #"{"ok":true,"outcome":"teleported"}"#) }
  }
}
