import CallAlertBridges
import Testing

@Suite("AMI frames")
struct AMIFrameDecoderTests {
  static let stream = Array(
    "Asterisk Call Manager/5.0.1\r\nResponse: Success\r\nMessage: Authentication accepted\r\n\r\nEvent: Hangup\r\nChannel: PJSIP/201-00000002\r\nCause-txt:Normal Clearing\r\n\r\n"
      .utf8)

  @Test func readsTheGreetingAndFramesHoweverTheBytesArrive() {
    var whole = AMIFrameDecoder()
    let all = whole.feed(Self.stream)
    var single = AMIFrameDecoder()
    let bytes = Self.stream.flatMap { single.feed([$0]) }
    #expect(all == bytes)
    #expect(all.count == 3)
    #expect(all.first == .greeting("Asterisk Call Manager/5.0.1"))
    guard case .frame(let event, let offset) = all.last else { Issue.record("no event frame"); return }
    #expect(offset == 84)
    #expect(event["event"] == "Hangup" && event["Cause-txt"] == "Normal Clearing")
    #expect(event.fields.count == 3)
  }

  @Test func keysMatchWithASCIICaseFoldedAndNothingElse() {
    let frame = AMIFrame([("Event", "Newstate"), ("Dest@Key", "x"), ("Linkedid", "1.2")])
    #expect(frame["EVENT"] == "Newstate" && frame["event"] == "Newstate" && frame["eVeNt"] == "Newstate")
    #expect(frame["LinkedID"] == "1.2")
    #expect(frame["Dest`key"] == nil, "@ and ` differ by 0x20 but are no letters")
    #expect(frame["Even"] == nil && frame["Events"] == nil && frame[""] == nil)
  }

  @Test func aFrameThatDoesNotParseIsReportedWithItsOffsetAndTheStreamGoesOn() {
    var decoder = AMIFrameDecoder()
    let text =
      "Asterisk Call Manager/5.0.1\r\nEvent: Newstate\r\nthis is no field\r\nChannel: x\r\n\r\nEvent: Hangup\r\n\r\n"
    let items = decoder.feed(Array(text.utf8))
    #expect(items.count == 3)
    guard case .malformed(let offset, let error) = items[1] else { Issue.record("not reported: \(items)"); return }
    #expect(offset == 29)
    #expect(error.message.contains("line 2") && error.message.contains("Key: Value"))
    #expect(items[2] == .frame(AMIFrame([("Event", "Hangup")]), offset: 78))
  }

  @Test func aFrameWithTooManyLinesIsBounded() {
    var decoder = AMIFrameDecoder()
    var text = "Asterisk Call Manager/5.0.1\r\n"
    for index in 0...AMIFrameDecoder.maximumFields { text += "Variable: v\(index)=1\r\n" }
    text += "\r\nEvent: Hangup\r\n\r\n"
    let items = decoder.feed(Array(text.utf8))
    #expect(items.count == 3)
    if case .malformed = items[1] {} else { Issue.record("an unbounded frame was kept") }
  }

  @Test func encodesActionsAsTheWireWantsThem() {
    let login = AMIFrame([("Action", "Login"), ("Username", "callalert")])
    #expect(String(decoding: login.encoded, as: UTF8.self) == "Action: Login\r\nUsername: callalert\r\n\r\n")
  }
}
