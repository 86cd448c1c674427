import CallAlertEngine
import CallAlertInputs
import CallAlertTestSupport
import Foundation
import Testing

/// docs/PUSH.md's examples read as the text under each says.
@Suite struct DocumentedPushTests {
  /// What each JSON block of PUSH.md gives, in the order of the file.
  static let expected: [PushNotification] = [
    .call(
      IncomingCall(
        id: "7F3A", callerNumber: "+4930123456", callerName: "Alice", sentAt: date("2025-11-21T22:00:00Z"),
        level: .timeSensitive)),
    .hangup(callID: "7F3A"),
    .call(IncomingCall(id: "8B1C", callerNumber: "+4930123456")),
    .call(
      IncomingCall(
        id: "c-981", callerNumber: "+14155550123", callerName: "Bob", sentAt: date("2025-11-21T22:00:00.250Z"))),
    .hangup(callID: "c-981"),
    .call(
      IncomingCall(
        id: "d1b0e6c2", callerNumber: "+441632960961", callerName: "Door intercom", level: .timeSensitive,
        patternHint: "steady_vibration")),
    .ignored(reason: #"pushType 3 is neither 1 or "call" (incoming call) nor 2 or "hangup" (hangup)"#),
    .ignored(reason: "no push rule and no preset (pushType, info.type, act) matches; top-level keys: aps"),
    .callWithoutID(IncomingCall(id: "", callerNumber: "+4930123456", callerName: "Alice")),
    .hangupWithoutID(callerNumber: "+4930123456"),
    .hangupWithoutID(callerNumber: nil),
    .callWithoutID(
      IncomingCall(id: "", callerName: "Door intercom", level: .timeSensitive, patternHint: "steady_vibration")),
    .call(
      IncomingCall(
        id: "r-17", callerNumber: "+4930123456", callerName: "Front desk", sentAt: date("2026-11-21T22:00:00Z"),
        level: .critical, patternHint: "office")),
    .hangup(callID: "r-17"),
    .call(IncomingCall(id: "4711", callerNumber: "+4930999")),
  ]

  @Test func everyExampleReadsAsDocumented() throws {
    let markdown = try documentText("PUSH.md")
    let yaml = try #require(codeBlocks(markdown, language: "yaml").first)
    let rules = try parseConfig(yaml.text).pushRules
    #expect(rules.count == 3)
    let examples = codeBlocks(markdown, language: "json")
    #expect(examples.count == Self.expected.count)
    for (example, expected) in zip(examples, Self.expected) {
      let result = try PushPayload.parse(
        json: Array(example.text.utf8), rules: rules, receivedAt: date("2027-01-01T00:00:00Z"))
      #expect(result == expected, "\(example.text)")
    }
  }

  @Test func theDocumentedErrorsAreTheOnesReported() throws {
    let markdown = try documentText("PUSH.md")
    let blocks = codeBlocks(markdown, language: "text").filter { $0.heading == "Errors" }
    try #require(blocks.count == 2)
    let rules = try parseConfig(try #require(codeBlocks(markdown, language: "yaml").first).text).pushRules
    let inputs = blocks[0].text.split(separator: "\n").map(String.init)
    let output = blocks[1]
    var lines: [String] = []
    for input in inputs {
      do {
        _ = try PushPayload.parse(json: Array(input.utf8), rules: rules, receivedAt: Date())
        Issue.record("\(input) parsed")
      } catch {
        lines.append(error.description)
      }
    }
    #expect(lines.joined(separator: "\n") == output.text)
  }
}
