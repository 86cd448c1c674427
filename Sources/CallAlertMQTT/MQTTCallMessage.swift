import CallAlertControl
import CallAlertEngine
import CallAlertText

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A message on `<base>/calls/<id>`: a JSON object with the control protocol's fields, of type `call` (also
/// when it leaves `type` out), `hangup` or `answered`, whose `id` is the topic's.
///
/// ```json
/// {"type":"call","id":"c1","caller":"+4930123","name":"Alice","sent_at":"2026-11-24T10:00:00Z"}
/// {"type":"hangup","id":"c1"}
/// ```
public enum MQTTCallMessage {
  /// The message types a call topic carries.
  public static let types = ["call", "hangup", "answered"]
  /// The largest call message: a call's fields fit in a few hundred bytes, and a 10 MB one was accepted whole
  /// and shared again, retained, as a missed call.
  public static let maximumBytes = 4_096
  /// How far in the future `sent_at` may be (clocks differ a little); a call "sent" in 2036 rang at every
  /// restart, retained, its cap never counting down.
  public static let maximumFutureSeconds: Double = 60
  /// The longest caller number, in characters.
  public static let maximumCallerCharacters = 64
  /// The longest caller name, in characters.
  public static let maximumNameCharacters = 256

  /// What a message means for the engine.
  public enum Decoded: Equatable, Sendable {
    /// An input for the engine.
    case input(EngineInput)
    /// An empty retained message: the publisher cleared the topic; nothing to do.
    case cleared
  }

  /// Reads a call message.
  ///
  /// - Parameters:
  ///   - topicID: the id the topic names.
  ///   - retained: whether the broker sent it from its retained store: such a call must say `sent_at`, or a
  ///     call from last week would ring on every reconnect.
  ///   - now: the time, against which `sent_at` may not be more than ``maximumFutureSeconds`` ahead.
  /// - Throws: ``InputError`` located at `mqtt:<topic>:1:<column>` with the field.
  public static func decode(
    _ payload: [UInt8], topic: String, topicID: String, retained: Bool, now: Date
  ) throws(InputError) -> Decoded {
    if payload.isEmpty { return .cleared }
    guard payload.count <= maximumBytes else {
      throw InputError(
        location: "mqtt:\(topic):1:1", field: "message",
        message: "the message is \(payload.count) bytes; a call message is at most \(maximumBytes) (4 KiB)")
    }
    // The topic says it is about a call: a message that leaves "type" out is the call itself.
    let request = try ControlRequest.parse(
      message: payload, types: types, defaultType: "call", source: "mqtt:\(topic)")
    let input: EngineInput
    let id: String?
    switch request {
    case .input(.call(let call)):
      if let sentAt = call.sentAt, sentAt.timeIntervalSince(now) > maximumFutureSeconds {
        throw InputError(
          location: "mqtt:\(topic):1:1", field: "sent_at",
          message: "the call says it was sent \(Int(sentAt.timeIntervalSince(now))) s from now; at most "
            + "\(Int(maximumFutureSeconds)) s ahead is taken (clocks differ a little); check the sender's clock")
      }
      for (field, value, limit) in [
        ("caller", call.callerNumber, maximumCallerCharacters), ("name", call.callerName, maximumNameCharacters),
      ] {
        if let value, value.count > limit {
          throw InputError(
            location: "mqtt:\(topic):1:1", field: field,
            message: "\(value.count) characters; a call message's \(field) is at most \(limit)")
        }
      }
      if retained && call.sentAt == nil {
        throw InputError(
          location: "mqtt:\(topic):1:1", field: "sent_at",
          message: "a retained call needs \"sent_at\" (its cap counts from there); publish without retain or add it")
      }
      input = .call(call)
      id = call.id
    case .input(.hangup(let callID)):
      input = .hangup(callID: callID)
      id = callID
    case .input(.answered(let callID)):
      input = .answered(callID: callID ?? topicID)
      id = callID
    default:
      throw InputError(
        location: "mqtt:\(topic):1:1", field: "type",
        message: "a call topic carries \(types.joined(separator: ", ")); send other requests to the control socket")
    }
    if let id, id != topicID {
      throw InputError(
        location: "mqtt:\(topic):1:1", field: "id",
        message: "\"\(id)\" is not the topic's call id \"\(topicID)\"; publish to \(topic.dropLast(topicID.count))\(id)"
      )
    }
    return .input(input)
  }

  /// Whether a message is a retained call whose cap has passed: it can no longer ring, and was shared as
  /// missed when it happened; taking it as a late call on every reconnection would bring back, as a new
  /// missed call, one that was acknowledged long ago. Such a message is skipped.
  public static func isStale(_ input: EngineInput, retained: Bool, now: Date, capMs: UInt64) -> Bool {
    guard retained, case .call(let call) = input, let sentAt = call.sentAt else { return false }
    return now.timeIntervalSince(sentAt) * 1_000 >= Double(capMs)
  }

  /// A call message's text, as a publisher sends it (for tests and `callalert` tools).
  public static func encode(_ input: EngineInput) throws(ControlFailure) -> String {
    try ControlRequest.input(input).line()
  }
}
