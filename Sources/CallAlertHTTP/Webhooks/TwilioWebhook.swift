import CallAlertControl
import CallAlertEngine
import CallAlertText
import Crypto

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Twilio's voice status callbacks: a form-encoded POST per change of `CallStatus` (`ringing`,
/// `in-progress`, `completed`, `busy`, `no-answer`, `canceled`, `failed`, and `queued`/`initiated` for
/// outgoing calls), keyed by `CallSid`. An inbound call that rings rings the board; `in-progress` (answered)
/// stops it; `completed` is a hangup; `busy`, `no-answer`, `canceled` and `failed` are missed. Outgoing
/// calls (`Direction` other than `inbound`) are acknowledged and ignored. The answer is empty TwiML.
public enum TwilioWebhook {
  /// The statuses Twilio documents.
  public static let statuses = [
    "queued", "initiated", "ringing", "in-progress", "completed", "busy", "no-answer", "canceled", "failed",
  ]

  /// Reads one request; the signature is checked before (``TwilioSignature``).
  ///
  /// - Throws: ``InputError`` naming the field: a missing `CallSid` or `CallStatus`, a status not documented.
  public static func parse(_ form: FormBody) throws(InputError) -> WebhookAnswer {
    let id = try Webhook.callID(try Webhook.required(form, "CallSid", provider: "Twilio"), field: "CallSid")
    let status = try Webhook.required(form, "CallStatus", provider: "Twilio")
    guard statuses.contains(status) else { throw Webhook.unknown(status, field: "CallStatus", known: statuses) }
    guard (form["Direction"] ?? "inbound") == "inbound" else { return WebhookAnswer([], contentType: xml, body: twiml) }
    let input: EngineInput? =
      switch status {
      case "ringing":
        .call(
          IncomingCall(
            id: id, callerNumber: Webhook.callerNumber(form["From"]),
            callerName: form["CallerName"].flatMap { $0.isEmpty ? nil : $0 }))
      case "in-progress": .answered(callID: id)
      case "completed": .hangup(callID: id)
      case "busy", "no-answer", "canceled", "failed": .unanswered(callID: id)
      default: nil  // queued, initiated: outgoing calls only
      }
    return WebhookAnswer(input.map { [.input($0)] } ?? [], contentType: xml, body: twiml)
  }

  static let xml = "text/xml"
  static let twiml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<Response/>\n"
}

/// Twilio's request signature (`X-Twilio-Signature`): base64 of HMAC-SHA1, keyed with the account's auth
/// token, over the full URL Twilio called followed by every POST parameter's name and value, sorted by name.
/// The MAC is swift-crypto's (`HMAC<Insecure.SHA1>`: SHA-1 is what Twilio signs with).
public enum TwilioSignature {
  /// The signature of a request.
  public static func signature(url: String, form: FormBody, authToken: String) -> String {
    Data(code(url: url, form: form, authToken: authToken)).base64EncodedString()
  }

  /// Whether `header` is the signature of the request: its base64 decoded and compared with the MAC in
  /// constant time (swift-crypto's `isValidAuthenticationCode`).
  public static func isValid(header: String?, url: String, form: FormBody, authToken: String) -> Bool {
    guard let header, let given = Data(base64Encoded: header.trimmingWhitespace()) else {
      return false
    }
    return HMAC<Insecure.SHA1>.isValidAuthenticationCode(
      given, authenticating: Array(signed(url: url, form: form).utf8), using: SymmetricKey(data: Array(authToken.utf8)))
  }

  private static func code(url: String, form: FormBody, authToken: String) -> HashedAuthenticationCode<Insecure.SHA1> {
    HMAC<Insecure.SHA1>.authenticationCode(
      for: Array(signed(url: url, form: form).utf8), using: SymmetricKey(data: Array(authToken.utf8)))
  }

  /// The text Twilio signs: the URL, then each parameter's name and value, sorted by name.
  private static func signed(url: String, form: FormBody) -> String {
    var text = url
    for pair in form.pairs.sorted(by: { ($0.name, $0.value) < ($1.name, $1.value) }) {
      text += pair.name + pair.value
    }
    return text
  }
}
