import CallAlertControl
import CallAlertEngine
import CallAlertText

/// sipgate.io's push API: a form-encoded POST per event (`event=newCall`, `answer`, `hangup`). A new incoming
/// call rings; the answer to `newCall` is the XML that subscribes to the call's `answer` and `hangup`
/// events (`onAnswer`, `onHangup`); `answer` stops the ring; `hangup` stops it too, and its `cause` tells an
/// answered call (`normalClearing`) from one the caller gave up or nobody took (`cancel`, `noAnswer`, `busy`,
/// ...), which is missed. Outgoing calls (`direction=out`) are acknowledged and ignored.
public enum SipgateWebhook {
  /// The events sipgate.io sends.
  public static let events = ["newCall", "answer", "hangup", "dtmf"]
  /// The hangup causes sipgate.io documents.
  public static let causes = [
    "normalClearing", "busy", "cancel", "noAnswer", "congestion", "notFound", "forwarded",
  ]

  /// Reads one request.
  ///
  /// - Parameters:
  ///   - form: The request's body.
  ///   - callbackURL: The URL sipgate.io is to send the call's later events to (this route's public URL).
  /// - Throws: ``InputError`` naming the field: a missing `event` or `callId`, a value not documented.
  public static func parse(_ form: FormBody, callbackURL: String) throws(InputError) -> WebhookAnswer {
    let event = try Webhook.required(form, "event", provider: "sipgate.io")
    if let direction = form["direction"], direction != "in" && direction != "out" {
      throw Webhook.unknown(direction, field: "direction", known: ["in", "out"])
    }
    if let cause = form["cause"], !causes.contains(cause) {
      throw Webhook.unknown(cause, field: "cause", known: causes)
    }
    switch event {
    case "newCall":
      let id = try Webhook.callID(try Webhook.required(form, "callId", provider: "sipgate.io"), field: "callId")
      guard (form["direction"] ?? "in") == "in" else { return WebhookAnswer([], contentType: xml, body: emptyResponse) }
      // `user[]` names who receives the call, not the caller: sipgate.io sends no caller's name.
      let call = IncomingCall(id: id, callerNumber: Webhook.callerNumber(form["from"]))
      let url = HTML.escape(callbackURL)  // the same character references serve XML
      return WebhookAnswer(
        [.input(.call(call))], contentType: xml,
        body: #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
          + #"<Response onAnswer="\#(url)" onHangup="\#(url)"/>"# + "\n")
    case "answer":
      let id = try Webhook.callID(try Webhook.required(form, "callId", provider: "sipgate.io"), field: "callId")
      return WebhookAnswer([.input(.answered(callID: id))], contentType: xml, body: emptyResponse)
    case "hangup":
      let id = try Webhook.callID(try Webhook.required(form, "callId", provider: "sipgate.io"), field: "callId")
      let cause = form["cause"] ?? "normalClearing"
      // normalClearing: someone hung up a call that was answered (or the caller, before the answer: a ring
      // that ends like this without an `answer` is still a plain hangup). forwarded: taken elsewhere.
      let input: EngineInput =
        switch cause {
        case "normalClearing", "forwarded": .hangup(callID: id)
        default: .unanswered(callID: id)
        }
      return WebhookAnswer([.input(input)], contentType: xml, body: emptyResponse)
    case "dtmf":
      _ = try Webhook.callID(try Webhook.required(form, "callId", provider: "sipgate.io"), field: "callId")
      return WebhookAnswer([], contentType: xml, body: emptyResponse)
    default:
      throw Webhook.unknown(event, field: "event", known: events)
    }
  }

  static let xml = "application/xml"
  static let emptyResponse = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<Response/>\n"

}
