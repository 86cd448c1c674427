import CallAlertControl
import CallAlertEngine
import Testing

/// What a request did, in words and JSON.
@Suite struct RequestOutcomeTests {
  static let call = IncomingCall(id: "c1")

  @Test func outcomesReadFromTheEngineEvents() {
    let ringing = EngineEvent.ringing(Self.call, boards: ["desk"], pattern: .slot(0), capMs: 30_000, silent: false)
    #expect(RequestOutcome.of(.call(Self.call), events: [ringing]).text == "ringing c1 on desk")
    let waiting = EngineEvent.ringing(Self.call, boards: [], pattern: .slot(0), capMs: 30_000, silent: false)
    #expect(RequestOutcome.of(.call(Self.call), events: [waiting]).result == .waiting)
    #expect(
      RequestOutcome.of(.call(Self.call), events: [.ignored(callID: "c1", reason: .duplicateCall)]).result == .duplicate
    )
    #expect(
      RequestOutcome.of(.hangup(callID: "c9"), events: [.ignored(callID: "c9", reason: .unknownCall)]).text
        == "unknown call id c9")
    #expect(
      RequestOutcome.of(.hangup(callID: "c1"), events: [.stopped(callID: "c1", reason: .hangup)]).text == "stopped c1")
    #expect(RequestOutcome.ignored("pushType 3 is neither").text == "ignored: pushType 3 is neither")
    #expect(
      RequestOutcome.of(.call(Self.call), events: [.ignored(callID: "c1", reason: .tooManyCalls)]).result == .refused)
  }

  @Test func theAnswerCarriesTheOutcome() {
    let outcome = RequestOutcome(.ringing, callID: "c1", boards: ["desk", "bed"])
    #expect(
      ControlResponse.outcome(outcome).line
        == #"{"ok":true,"outcome":"ringing","id":"c1","boards":["desk","bed"],"message":"ringing c1 on desk, bed"}"#)
    #expect(
      ControlResponse.outcome(RequestOutcome.ignored("why")).line
        == #"{"ok":true,"outcome":"ignored","reason":"why","message":"ignored: why"}"#)
  }
}
