import CallAlertInputs
import Foundation
import Testing

@Suite struct ControlResponseTests {
  struct Status: Encodable {
    var ringing: [String]
    var since: Date
    var doNotDisturb: String?
  }

  @Test func okIsOneObject() {
    #expect(ControlResponse.ok() == #"{"ok":true}"#)
  }

  @Test func okCarriesAValueUnderItsKeyWithSortedKeysAndISODates() {
    let status = Status(ringing: ["c1"], since: Date(timeIntervalSince1970: 1_795_298_400.25), doNotDisturb: nil)
    #expect(
      ControlResponse.ok("status", status)
        == #"{"ok":true,"status":{"ringing":["c1"],"since":"2026-11-21T22:00:00.250Z"}}"#)
    #expect(ControlResponse.ok("ignored", "no rule matches") == #"{"ok":true,"ignored":"no rule matches"}"#)
    #expect(ControlResponse.ok("path", "/run/a.sock") == #"{"ok":true,"path":"/run/a.sock"}"#)
  }

  @Test func aValueThatCannotBeEncodedIsAFailureLine() {
    let line = ControlResponse.ok("value", Double.nan)
    #expect(line.hasPrefix(#"{"ok":false,"error":"cannot encode the reply: "#))
    #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(line.utf8)) }
  }

  @Test func failuresCarryTheErrorAndItsParts() throws {
    let error = InputError(location: "socket:1:34", field: "level", message: #""urgent" is not one of passive, active"#)
    let line = ControlResponse.failure(error)
    #expect(
      line
        == #"{"ok":false,"error":"socket:1:34: level: \"urgent\" is not one of passive, active","#
        + #""location":"socket:1:34","field":"level","message":"\"urgent\" is not one of passive, active"}"#
    )
    let withoutField = ControlResponse.failure(InputError(location: "socket:1:1", message: "empty line"))
    #expect(
      withoutField == #"{"ok":false,"error":"socket:1:1: empty line","location":"socket:1:1","message":"empty line"}"#)
    #expect(ControlResponse.failure("history: disk full\n") == #"{"ok":false,"error":"history: disk full\n"}"#)
  }

  /// Every answer is one line of valid JSON whatever the text holds.
  @Test(arguments: ["plain", "quote \" backslash \\", "new\nline", "\u{0}\u{1F}", "é 📞", "\u{2028}"])
  func answersAreOneLineOfJSON(text: String) throws {
    for line in [
      ControlResponse.failure(text), ControlResponse.ok("x", text),
      ControlResponse.failure(InputError(location: text, field: text, message: text)),
    ] {
      #expect(!line.contains("\n"))
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect(
        object["error"] as? String == text || object["x"] as? String == text || object["message"] as? String == text)
    }
  }
}
