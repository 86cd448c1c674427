import CallAlertControl
import CallAlertEngine
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// The typed client: requests written once, parsed back by the daemon's reader to the same value; answers
/// read back to the typed response.
@Suite struct ControlClientTests {
  static let requests: [ControlRequest] = [
    .input(
      .call(
        IncomingCall(
          id: "c1", callerNumber: "+4930123", callerName: "Alice \"A\"",
          sentAt: Date(timeIntervalSince1970: 1_795_298_400.25), level: .timeSensitive, patternHint: "office"))),
    .input(.call(IncomingCall(id: "c2"))),
    .input(.hangup(callID: "c1")),
    .input(.answered(callID: nil)),
    .input(.answered(callID: "c1")),
    .input(.acknowledge(board: nil)),
    .input(.acknowledge(board: "bed")),
    .input(.setDoNotDisturb(.scheduled)),
    .input(.setDoNotDisturb(.on, until: Date(timeIntervalSince1970: 1_795_845_600.5))),
    .input(.setSilent(false)),
    .status,
    .history(missedOnly: true, limit: 5),
    .reload,
  ]

  @Test(arguments: requests)
  func aRequestLineParsesBackToTheRequest(request: ControlRequest) throws {
    let line = try request.line()
    #expect(try ControlRequest.parse(line: line, source: "socket", lineNumber: 1) == request)
  }

  /// `notify push FILE`: the file's text travels as a string and its errors are located in the file.
  @Test func aPayloadFileTravelsAsTextAndKeepsItsPlace() throws {
    let file = "{\n  \"pushType\": 1,\n  \"callId\": \"p1\"\n}\n"
    let document = try PushPayload.Document.parse(Array(file.utf8), origin: PushPayload.Origin(source: "call.json"))
    let line = try ControlRequest.push(document).line()
    #expect(!line.contains("\n"))
    guard case .push(let received) = try ControlRequest.parse(line: line, source: "socket", lineNumber: 1) else {
      Issue.record("not a push")
      return
    }
    #expect(received.form == .text(file: "call.json"))
    #expect(received.origin == PushPayload.Origin(source: "call.json"))
    #expect(try PushPayload.read(received, receivedAt: Date()) == .call(IncomingCall(id: "p1")))
  }

  @Test func engineInputsOfTheBoardsAreNoRequest() {
    #expect(throws: ControlFailure.self) { try ControlRequest.input(.boardLost(board: "desk")).line() }
  }

  /// A client over an in-memory daemon that parses each line and answers from `answer`.
  static func client(_ answer: @escaping @Sendable (ControlRequest) -> ControlResponse) -> ControlClient {
    ControlClient { line async throws(ControlClientError) in
      do throws(InputError) {
        return answer(try ControlRequest.parse(line: line, source: "test", lineNumber: 1)).line
      } catch {
        return ControlResponse.failure(error).line
      }
    }
  }

  @Test func performReturnsTheOutcomeAndThrowsARefusal() async throws {
    let ringing = RequestOutcome(.ringing, callID: "c1", boards: ["desk"])
    let client = Self.client { request in
      request == .input(.hangup(callID: "c1")) ? .failure("test:1: no") : .outcome(ringing)
    }
    #expect(try await client.perform(.input(.call(IncomingCall(id: "c1")))) == ringing)
    await #expect(throws: ControlClientError.refused(ControlFailure("test:1: no"))) {
      try await client.perform(.input(.hangup(callID: "c1")))
    }
  }

  @Test func anAnswerOfTheWrongKindIsNamed() async {
    let client = Self.client { _ in .ok }
    await #expect(throws: ControlClientError.self) { try await client.status() }
  }
}
