import CallAlertEngine
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// docs/PUSH.md's examples read as the text under each says.
@Suite struct DocumentedPushTests {
  /// What each JSON block of PUSH.md gives, in the order of the file.
  static let expected: [PushNotification] = [
    .call(
      IncomingCall(
        id: "7F3A", callerNumber: "+4930123456", callerName: "Alice", level: .timeSensitive)),
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

  /// Each JSON example with the words written under it, up to the next block.
  static func examplesWithTheirText(_ markdown: String) -> [(json: String, text: String)] {
    var found: [(String, String)] = []
    let pieces = markdown.components(separatedBy: "```json\n").dropFirst()
    for piece in pieces {
      let parts = piece.components(separatedBy: "```")
      guard parts.count >= 2 else { continue }
      found.append((parts[0], parts[1]))
    }
    return found
  }

  /// Pasted now (`callalert notify push`), every call example rings, unless the text under it says it is
  /// recorded as missed: the first example's fixed `sentAt` was years past its cap, so it never rang.
  @Test func everyCallExampleRingsWhenPastedNowOrSaysItIsMissed() throws {
    let markdown = try documentText("PUSH.md")
    let rules = try parseConfig(try #require(codeBlocks(markdown, language: "yaml").first).text).pushRules
    let examples = Self.examplesWithTheirText(markdown)
    #expect(examples.count == Self.expected.count)
    let now = Date()
    var rang = 0
    for (json, text) in examples {
      let call: IncomingCall
      switch try PushPayload.parse(json: Array(json.utf8), rules: rules, receivedAt: now) {
      case .call(let parsed), .callWithoutID(let parsed): call = parsed
      default: continue
      }
      var engine = AlertEngine(
        configuration: EngineConfiguration(boards: [AlertBoard(name: "desk")]),
        now: EngineTime(monotonicMs: 0, wall: now))
      let effects = engine.handle(
        .call(
          call.id.isEmpty
            ? IncomingCall(
              id: "pasted", callerNumber: call.callerNumber,
              callerName: call.callerName, sentAt: call.sentAt, level: call.level, patternHint: call.patternHint) : call
        ),
        at: EngineTime(monotonicMs: 0, wall: now))
      let rings = effects.contains { if case .event(.ringing) = $0 { true } else { false } }
      let saysMissed = text.contains("recorded as missed")
      #expect(rings != saysMissed, "\(json) rings: \(rings); its text: \(text)")
      if rings { rang += 1 }
    }
    #expect(rang >= 5)
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
