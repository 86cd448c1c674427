import CallAlertControl
import CallAlertEngine
import CallAlertHTTP
import CallAlertText
import Foundation
import Testing

/// The providers' webhooks as their documentation shows them (Fixtures/), read by the pure parsers.
@Suite("Webhook parsers")
struct WebhookParserTests {
  static func fixture(_ name: String) throws -> [UInt8] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    return Array(try Data(contentsOf: url))
  }

  static func form(_ name: String) throws -> FormBody { try FormBody.parse(try fixture(name)) }

  @Test func sipgateNewCallRingsAndSubscribesToAnswerAndHangup() throws {
    let answer = try SipgateWebhook.parse(
      try Self.form("sipgate-newCall.form"), callbackURL: "https://example.org/cb/v1/webhooks/sipgate?token=a&b")
    #expect(answer.requests == [.input(.call(IncomingCall(id: "123456", callerNumber: "+492111234567")))])
    #expect(answer.contentType == "application/xml")
    #expect(
      answer.body.contains(
        #"<Response onAnswer="https://example.org/cb/v1/webhooks/sipgate?token=a&amp;b" onHangup="https://example.org/cb/v1/webhooks/sipgate?token=a&amp;b"/>"#
      ))
    let withheld = try SipgateWebhook.parse(try Self.form("sipgate-newCall-anonymous.form"), callbackURL: "u")
    #expect(withheld.requests == [.input(.call(IncomingCall(id: "654321")))])
    let outgoing = try SipgateWebhook.parse(try Self.form("sipgate-newCall-out.form"), callbackURL: "u")
    #expect(outgoing.requests.isEmpty && outgoing.body.contains("<Response/>"))
  }

  @Test func sipgateAnswerAndHangupCauses() throws {
    #expect(
      try SipgateWebhook.parse(try Self.form("sipgate-answer.form"), callbackURL: "u").requests == [
        .input(.answered(callID: "123456"))
      ])
    #expect(
      try SipgateWebhook.parse(try Self.form("sipgate-hangup-normalClearing.form"), callbackURL: "u").requests == [
        .input(.hangup(callID: "123456"))
      ])
    for name in ["sipgate-hangup-cancel.form", "sipgate-hangup-noAnswer.form"] {
      #expect(
        try SipgateWebhook.parse(try Self.form(name), callbackURL: "u").requests == [
          .input(.unanswered(callID: "123456"))
        ])
    }
  }

  @Test func sipgateRefusesWhatItDoesNotDocumentNamingTheField() throws {
    let missing = #expect(throws: InputError.self) {
      try SipgateWebhook.parse(try FormBody.parse(Array("event=newCall&from=1".utf8)), callbackURL: "u")
    }
    #expect(missing?.field == "callId")
    let cause = #expect(throws: InputError.self) {
      try SipgateWebhook.parse(try FormBody.parse(Array("event=hangup&callId=1&cause=cancle".utf8)), callbackURL: "u")
    }
    #expect(cause?.field == "cause" && cause?.message.contains("cancel") == true)
    let direction = #expect(throws: InputError.self) {
      try SipgateWebhook.parse(try FormBody.parse(Array("event=dtmf&callId=1&direction=inn".utf8)), callbackURL: "u")
    }
    #expect(direction?.field == "direction")
    let event = #expect(throws: InputError.self) {
      try SipgateWebhook.parse(try FormBody.parse(Array("event=newcall&callId=1".utf8)), callbackURL: "u")
    }
    #expect(event?.field == "event")
  }

  @Test func twilioStatusCallbacks() throws {
    let ringing = try TwilioWebhook.parse(try Self.form("twilio-ringing.form"))
    #expect(
      ringing.requests == [
        .input(
          .call(
            IncomingCall(
              id: "CA5f7b1c4e7b8e4f0e9b2c3d4e5f6a7b8c", callerNumber: "+15558675310", callerName: "Alice Smith")))
      ])
    #expect(ringing.contentType == "text/xml" && ringing.body.contains("<Response/>"))
    let id = "CA5f7b1c4e7b8e4f0e9b2c3d4e5f6a7b8c"
    #expect(
      try TwilioWebhook.parse(try Self.form("twilio-in-progress.form")).requests == [.input(.answered(callID: id))])
    #expect(try TwilioWebhook.parse(try Self.form("twilio-completed.form")).requests == [.input(.hangup(callID: id))])
    #expect(
      try TwilioWebhook.parse(try Self.form("twilio-no-answer.form")).requests == [.input(.unanswered(callID: id))])
    #expect(try TwilioWebhook.parse(try Self.form("twilio-outbound-ringing.form")).requests.isEmpty)
    let bad = #expect(throws: InputError.self) {
      try TwilioWebhook.parse(try FormBody.parse(Array("CallSid=CA1&CallStatus=ringin".utf8)))
    }
    #expect(bad?.field == "CallStatus" && bad?.message.contains("ringing") == true)
  }

  @Test func vonageVoiceEvents() throws {
    let id = "0779a56d002f1c7f47f82ef5fe84ab79"
    let ringing = try VonageWebhook.parse(try Self.fixture("vonage-ringing.json"))
    #expect(ringing.requests == [.input(.call(IncomingCall(id: id, callerNumber: "+441234567890")))])
    #expect(ringing.contentType == "application/json" && ringing.body == "{}")
    #expect(
      try VonageWebhook.parse(try Self.fixture("vonage-answered.json")).requests == [.input(.answered(callID: id))])
    #expect(
      try VonageWebhook.parse(try Self.fixture("vonage-completed.json")).requests == [.input(.hangup(callID: id))])
    #expect(
      try VonageWebhook.parse(try Self.fixture("vonage-unanswered.json")).requests == [.input(.unanswered(callID: id))])
    #expect(try VonageWebhook.parse(try Self.fixture("vonage-record.json")).requests.isEmpty)
    let broken = #expect(throws: InputError.self) { try VonageWebhook.parse(Array("{\n  \"status\": }".utf8)) }
    #expect(broken?.location == "body:2:13")
    let typed = #expect(throws: InputError.self) {
      try VonageWebhook.parse(Array(#"{"status":"ringing","uuid":"u1","from":{}}"#.utf8))
    }
    #expect(typed?.field == "from" && typed?.location == "body:1:40")
    #expect(try VonageWebhook.parse(Array(#"{"status":"transfer"}"#.utf8)).requests.isEmpty)
  }

  @Test func formBodiesDecodeEscapesAndRefuseBrokenOnes() throws {
    let form = try FormBody.parse(Array("a=1+2&b=%C3%A9&user%5B%5D=x&user[]=y&flag&=v".utf8))
    #expect(form["a"] == "1 2" && form["b"] == "é" && form.values("user[]") == ["x", "y"] && form["flag"] == "")
    let bad = #expect(throws: InputError.self) { try FormBody.parse(Array("a=%zz".utf8)) }
    #expect(bad?.location == "body:byte 3")
    #expect(throws: InputError.self) { try FormBody.parse(Array("a=%C3".utf8)) }
    #expect(throws: InputError.self) { try FormBody.parse(Array("a=%4".utf8)) }
  }
}
