import CallAlertControl
import CallAlertEngine
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// docs/CONFIG.md's control protocol and events sections match what the code reads and writes.
@Suite struct DocumentedControlTests {
  static func blocks(_ language: String, under heading: String) throws -> [String] {
    codeBlocks(try documentText("CONFIG.md"), language: language).filter { $0.heading == heading }.map(\.text)
  }

  @Test func everyDocumentedRequestParses() throws {
    let requests = try #require(try Self.blocks("json", under: "Control protocol").first)
    let parsed = try requests.split(separator: "\n").enumerated().map { index, line in
      try ControlRequest.parse(line: String(line), source: "CONFIG.md", lineNumber: index + 1)
    }
    let pushes = parsed.compactMap { if case .push(let document) = $0 { document } else { nil } }
    #expect(
      pushes.map(\.payload) == [
        Array(#"{"pushType":1,"callId":"c3","caller":"+4930123","aps":{"interruption-level":"time-sensitive"}}"#.utf8)
      ])
    #expect(pushes.map(\.origin) == [.init(source: "CONFIG.md", line: 9, column: 26)])
    #expect(
      parsed.filter { if case .push = $0 { false } else { true } } == [
        .input(
          .call(
            IncomingCall(
              id: "c1", callerNumber: "+4930123", callerName: "Alice", level: .timeSensitive, patternHint: "office"))),
        .input(.call(IncomingCall(id: "c2", callerNumber: "+4930123", level: .critical))),
        .input(.hangup(callID: "c1")),
        .input(.answered(callID: nil)),
        .input(.answered(callID: "c1")),
        .input(.acknowledge(board: nil)),
        .input(.acknowledge(board: "bed")),
        .input(.acknowledgeMissed(callID: "c3")),
        .input(.setDoNotDisturb(.scheduled)),
        .input(.setSilent(true)),
        .status,
        .history(missedOnly: true, limit: 20),
        .reload,
        .pair(device: "Pixel 7"),
      ])
  }

  @Test func theDocumentedErrorsAreTheOnesReported() throws {
    let texts = try Self.blocks("text", under: "Control protocol")
    try #require(texts.count == 2)
    let lines = texts[0].split(separator: "\n").map(String.init)
    var reported: [String] = []
    for (index, line) in lines.enumerated() {
      do {
        _ = try ControlRequest.parse(line: line, source: "<stdin>", lineNumber: index + 1)
        Issue.record("\(line) parsed")
      } catch {
        reported.append(error.description)
      }
    }
    #expect(reported.joined(separator: "\n") == texts[1])
  }

  @Test func theDocumentedFailureAnswerIsTheOneWritten() throws {
    let answers = try #require(try Self.blocks("json", under: "Control protocol").last).split(separator: "\n")
    #expect(answers.first == Substring(ControlResponse.ok.line))
    #expect(
      answers[1] == Substring(ControlResponse.outcome(RequestOutcome(.ringing, callID: "c1", boards: ["desk"])).line))
    let line = #"{"type":"call","id":"c1","level":"urgent"}"#
    let error = try #require(throws: InputError.self) {
      try ControlRequest.parse(line: line, source: "socket", lineNumber: 1)
    }
    #expect(answers.last == Substring(ControlResponse.failure(error).line))
  }

  @Test func theDocumentedEventLinesAreTheOnesWritten() throws {
    let alice = IncomingCall(id: "c1", callerNumber: "+4930123", callerName: "Alice")
    let events: [(EngineEvent, String)] = [
      (.ringing(alice, boards: ["desk", "bed"], pattern: .named("office"), capMs: 30_000, silent: false), "22:00:01"),
      (.suppressed(IncomingCall(id: "c2"), reason: .doNotDisturb), "22:00:01"),
      (.stopped(callID: "c1", reason: .hangup), "22:00:09"),
      (
        .missed(
          IncomingCall(id: "c3", callerNumber: "+4930123", sentAt: date("2026-11-21T22:00:00Z"), level: .critical),
          reason: .cap),
        "22:00:31"
      ),
      (.missedAcknowledged(count: 2), "22:05:00"),
      (.missedCallAcknowledged(callID: "c3"), "22:05:00"),
      (.ignored(callID: "c1", reason: .duplicateCall), "22:05:01"),
      (
        .patternFallback(
          callID: "c4", board: "desk", requested: .named("office"), played: "UK",
          reason: "the board refused it (badSlot)"),
        "22:06:00"
      ),
      (
        .callsRefused(
          source: .mqtt, count: 523, first: IncomingCall(id: "m33", callerNumber: "+4930123"),
          since: date("2026-11-21T22:06:00Z")),
        "22:07:00"
      ),
      (.doNotDisturbEnded(mode: .off, until: date("2026-11-21T23:00:00Z")), "23:00:00"),
    ]
    let utc = try #require(TimeZone(identifier: "UTC"))
    let json = events.map { EventLine.json($0.0, at: date("2026-11-21T\($0.1)Z")) }.joined(separator: "\n")
    let text = events.map { EventLine.text($0.0, at: date("2026-11-21T\($0.1)Z"), timeZone: utc) }.joined(
      separator: "\n")
    #expect(try Self.blocks("json", under: "Events") == [json])
    #expect(try Self.blocks("text", under: "Events") == [text])
  }
}
