import CallAlertControl
import CallAlertEngine
import CallAlertText
import Foundation
import Testing

/// Names and ids from outside are shown safely and quoted briefly.
@Suite struct SafeDisplayTests {
  @Test(arguments: [
    ("Alice", "Alice"),
    ("A\u{1B}[2JB", "A\\u001B[2JB"),
    ("line\nbreak\ttab\r", "line\\nbreak\\ttab\\r"),
    ("bell\u{07}del\u{7F}c1\u{9B}", "bell\\u0007del\\u007Fc1\\u009B"),
    ("evil\u{202E}txt", "evil\\u202Etxt"),
    ("Zoë 📞 C:\\", "Zoë 📞 C:\\"),
  ])
  func controlCharactersAreEscaped(raw: String, shown: String) {
    #expect(DisplayText.safe(raw) == shown)
  }

  @Test func excerptsAreShortAndSayHowLong() {
    let long = String(repeating: "x", count: 10_000)
    #expect(DisplayText.excerpt(long) == String(repeating: "x", count: 60) + "… (10000 bytes)")
    #expect(DisplayText.excerpt("short") == "short")
  }

  @Test func textEventsShowNamesAndIDsSafely() {
    let call = IncomingCall(id: "c\u{1B}]0;pwned\u{07}", callerNumber: "+1\u{1B}[31m", callerName: "Eve\u{1B}[2J")
    let at = Date(timeIntervalSince1970: 0)
    let lines = [
      EventLine.text(
        .ringing(call, boards: ["desk"], pattern: .named("x\u{1B}[5m"), capMs: 30_000, silent: false), at: at,
        timeZone: TimeZone(identifier: "UTC")!),
      EventLine.text(.stopped(callID: call.id, reason: .hangup), at: at),
      EventLine.text(.missed(call, reason: .cap), at: at),
      EventLine.text(.suppressed(call, reason: .passive), at: at),
      EventLine.text(.ignored(callID: call.id, reason: .duplicateCall), at: at),
    ]
    for line in lines {
      #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(line)")
    }
    #expect(
      lines[0]
        == #"00:00:00 ringing c\u001B]0;pwned\u0007 Eve\u001B[2J (+1\u001B[31m) on desk: pattern x\u001B[5m, 30 s"#)
  }

  @Test func errorsQuoteAShortExcerptOfAHugeValue() throws {
    let huge = String(repeating: "a", count: 5_000_000)
    let line = #"{"type":"call","id":"c1","level":"\#(huge)"}"#
    let clock = ContinuousClock()
    var message = ""
    let elapsed = clock.measure {
      do {
        _ = try ControlRequest.parse(line: line, source: "socket", lineNumber: 1)
      } catch {
        message = "\(error)"
      }
    }
    #expect(message.utf8.count < 400, "\(message.prefix(400))")
    #expect(message.contains("… (5000000 bytes)"))
    #expect(elapsed < .seconds(5))
  }
}
