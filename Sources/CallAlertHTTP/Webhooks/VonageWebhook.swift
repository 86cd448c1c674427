import CallAlertControl
import CallAlertEngine
import CallAlertText

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Vonage's voice event webhook: a JSON POST per change of a call's `status` (`started`, `ringing`,
/// `answered`, `completed`, `busy`, `cancelled`, `unanswered`, `rejected`, `failed`, `timeout`, ...), keyed by
/// the leg's `uuid`. An inbound call that starts or rings rings the board (the second is a duplicate the
/// engine ignores); `answered` stops it; `completed` is a hangup; the give-ups are missed. Other events
/// (`human/machine`, `record`, `input`, `transfer`, ...) and outbound calls are acknowledged and ignored.
/// Vonage reads nothing from the answer to an event; it gets `{}`.
public enum VonageWebhook {
  /// The call statuses that mean something here.
  public static let statuses = [
    "started", "ringing", "answered", "completed", "busy", "cancelled", "unanswered", "rejected", "failed",
    "timeout", "disconnected", "machine", "human",
  ]

  /// Reads one request.
  ///
  /// - Throws: ``InputError`` at `body:line:column` for JSON that is not an object, or naming the field: a
  ///   `uuid` missing from a call's status event.
  public static func parse(_ bytes: [UInt8]) throws(InputError) -> WebhookAnswer {
    let root: JSONValue
    do {
      root = try JSONParser.parse(bytes)
    } catch {
      let position = TextPosition.of(error.offset, in: bytes)
      throw InputError(
        location: "body:\(position.line):\(position.column)", message: "JSON syntax error: \(error.message)")
    }
    guard root.members != nil else {
      throw InputError(location: "body:1:1", message: "an event must be a JSON object, not \(root.kindDescription)")
    }
    // The fields read here are strings when present; anything else is refused, naming the field and place.
    for field in ["status", "direction", "uuid", "from"] {
      if let value = root[field], value.string == nil, !value.isNull {
        let position = TextPosition.of(value.start, in: bytes)
        throw InputError(
          location: "body:\(position.line):\(position.column)", field: field,
          message: "must be a string, not \(value.kindDescription)")
      }
    }
    let done = WebhookAnswer([], contentType: json, body: "{}")
    guard let status = root["status"]?.string else { return done }  // not a call status (record, input, ...)
    guard (root["direction"]?.string ?? "inbound") == "inbound" else { return done }
    guard statuses.contains(status) else { return done }  // human/machine results, transfers, ...
    guard let uuid = root["uuid"]?.string, !uuid.isEmpty else {
      throw InputError(location: "body", field: "uuid", message: "missing; a Vonage call event always sends it")
    }
    let id = try Webhook.callID(uuid, field: "uuid")
    let input: EngineInput? =
      switch status {
      case "started", "ringing":
        .call(IncomingCall(id: id, callerNumber: Webhook.callerNumber(root["from"]?.string)))
      case "answered": .answered(callID: id)
      case "completed", "disconnected": .hangup(callID: id)
      case "busy", "cancelled", "unanswered", "rejected", "failed", "timeout": .unanswered(callID: id)
      default: nil
      }
    return WebhookAnswer(input.map { [.input($0)] } ?? [], contentType: json, body: "{}")
  }

  static let json = "application/json"
}
