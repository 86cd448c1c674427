import Foundation

/// The replies of the control protocol, one JSON object per line: `{"ok":true,...}` or
/// `{"ok":false,"error":"..."}`.
public enum ControlResponse {
  /// `{"ok":true}`.
  public static func ok() -> String { #"{"ok":true}"# }

  /// `{"ok":true,"<key>":<value>}`, the value encoded with `JSONEncoder` (sorted keys, dates as ISO 8601
  /// with milliseconds in UTC); a value that cannot be encoded gives a failure line instead.
  public static func ok<Value: Encodable>(_ key: String, _ value: Value) -> String {
    let encoder = Self.encoder()
    do {
      let data = try encoder.encode(value)
      return "{\"ok\":true,\(JSONText.quoted(key)):\(String(decoding: data, as: UTF8.self))}"
    } catch {
      return failure("cannot encode the reply: \(error)")
    }
  }

  /// `{"ok":true,"outcome":"ringing","id":"c1","boards":["desk"],"message":"ringing c1 on desk"}`: what a
  /// call, hangup, answered, ack or push request did (`id`, `boards` and `reason` only when they apply).
  public static func ok(_ outcome: RequestOutcome) -> String {
    var members = [("ok", "true"), ("outcome", JSONText.quoted(outcome.result.rawValue))]
    if let id = outcome.callID { members.append(("id", JSONText.quoted(id))) }
    if !outcome.boards.isEmpty { members.append(("boards", JSONText.array(outcome.boards))) }
    if let reason = outcome.reason { members.append(("reason", JSONText.quoted(reason))) }
    members.append(("message", JSONText.quoted(outcome.text)))
    return JSONText.object(members)
  }

  /// The encoder of the replies, for every JSON the runtime writes (`callalert history --json` too): sorted
  /// keys, dates as ISO 8601 with milliseconds in UTC (`2026-11-21T22:00:01.250Z`).
  public static func encoder(_ formatting: JSONEncoder.OutputFormatting = []) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting.union([.sortedKeys, .withoutEscapingSlashes])
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(Timestamp.iso8601(date))
    }
    return encoder
  }

  /// `{"ok":false,"error":"<location: field: message>","location":...,"field":...,"message":...}`.
  public static func failure(_ error: InputError) -> String {
    var members = [("ok", "false"), ("error", JSONText.quoted(error.description))]
    members.append(("location", JSONText.quoted(error.location)))
    if !error.field.isEmpty { members.append(("field", JSONText.quoted(error.field))) }
    members.append(("message", JSONText.quoted(error.message)))
    return JSONText.object(members)
  }

  /// `{"ok":false,"error":"<message>"}`.
  public static func failure(_ message: String) -> String {
    JSONText.object([("ok", "false"), ("error", JSONText.quoted(message))])
  }
}
