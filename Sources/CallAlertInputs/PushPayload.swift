import CallAlertEngine
import Foundation

/// Reads push notification payloads (the JSON an app server sends through APNs or FCM, forwarded to the
/// daemon) into calls and hangups: first the config's ``PushRule``s, in order, then the built-in presets
/// (see docs/PUSH.md).
public enum PushPayload {
  /// Where a preset looks for the call id, first present wins.
  public static let callIDPaths: [JSONPath] = [
    "callId", "call_id", "callID", "uuid", "id", "info.callId", "info.id", "aps.thread-id",
  ]
  /// Where a preset looks for the caller's number.
  public static let callerPaths: [JSONPath] = ["caller", "callerNumber", "from", "number", "info.caller", "info.from"]
  /// Where a preset looks for the caller's name (then `aps.alert` when it is a string, or `aps.alert.title`).
  public static let namePaths: [JSONPath] = ["callerName", "name", "info.callerName", "aps.alert.title"]
  /// Where a preset looks for the time the notification was sent.
  public static let sentAtPaths: [JSONPath] = ["sentAt", "sent_at", "timestamp", "info.timestamp"]
  /// Where the interruption level is, as Apple defines it.
  public static let levelPath: JSONPath = "aps.interruption-level"
  /// The pattern hint of the `act: 4` preset (an alert that needs continuous vibration).
  public static let continuousVibrationHint = "continuous-vibration"

  /// Reads a payload.
  ///
  /// - Parameters:
  ///   - bytes: The payload, UTF-8 JSON; its top level must be an object.
  ///   - rules: The config's rules, tried before the presets.
  ///   - receivedAt: When the payload arrived. A sent-at time later than this (the sender's clock is ahead)
  ///     is lowered to it, so a wrong clock can never stretch the 30 s cap.
  ///   - source: Names the input in errors: `push:byte 17`.
  /// - Returns: A call, a hangup, or `ignored` with the reason for payloads that are not about calls.
  /// - Throws: ``InputError`` for JSON syntax errors (located at their byte offset) and for call payloads with
  ///   no id or with a value of the wrong kind (located at the value, with its field path).
  public static func parse(
    json bytes: [UInt8], rules: [PushRule] = [], receivedAt: Date, source: String = "push"
  ) throws(InputError) -> PushNotification {
    let root: JSONValue
    do {
      root = try JSONParser.parse(bytes)
    } catch {
      throw InputError(location: "\(source):byte \(error.offset)", message: "JSON syntax error: \(error.message)")
    }
    let reader = PushReader(root: root, source: source, receivedAt: receivedAt)
    guard root.members != nil else {
      throw InputError(
        location: "\(source):byte \(root.start)",
        message: "a push payload must be a JSON object, not \(root.kindDescription)")
    }
    for (index, rule) in rules.enumerated() where reader.matches(rule) {
      return try reader.apply(rule, index: index)
    }
    return try reader.presets()
  }

  /// Reads a payload from `Data`.
  public static func parse(
    json data: Data, rules: [PushRule] = [], receivedAt: Date, source: String = "push"
  ) throws(InputError) -> PushNotification {
    try parse(json: Array(data), rules: rules, receivedAt: receivedAt, source: source)
  }
}

/// Looks values up in one payload and turns them into a call or a hangup.
struct PushReader {
  let root: JSONValue
  let source: String
  let receivedAt: Date

  func error(_ value: JSONValue?, _ field: String, _ message: String) -> InputError {
    InputError(location: "\(source):byte \(value?.start ?? root.start)", field: field, message: message)
  }

  /// Whether every condition of `rule` holds.
  func matches(_ rule: PushRule) -> Bool {
    rule.match.allSatisfy { condition in
      guard let value = root.value(at: condition.path) else { return false }
      switch value.kind {
      case .string(let text): return text == condition.equals
      case .number(let text):
        if text == condition.equals { return true }
        guard let lhs = Double(text), let rhs = Double(condition.equals) else { return false }
        return lhs == rhs
      case .bool(let flag): return condition.equals.lowercased() == (flag ? "true" : "false")
      case .null: return ["null", "~", ""].contains(condition.equals)
      case .array, .object: return false
      }
    }
  }

  /// Applies a rule that matched.
  func apply(_ rule: PushRule, index: Int) throws(InputError) -> PushNotification {
    let id = try text(at: rule.id)
    guard let id else {
      throw error(
        nil, rule.id.description, "no call id at \(rule.id) (push_rules[\(index)] matched this payload)")
    }
    guard rule.kind == .call else { return .hangup(callID: id) }
    var call = IncomingCall(id: id)
    if let path = rule.caller { call.callerNumber = try text(at: path) }
    if let path = rule.name { call.callerName = try text(at: path) }
    if let path = rule.sentAt { call.sentAt = try date(at: path) }
    if let path = rule.level { call.level = try level(at: path) ?? .active }
    if let path = rule.pattern { call.patternHint = try text(at: path) }
    return .call(call)
  }

  /// The text at `path`: a string, or a number as written; nil when absent, null or empty.
  func text(at path: JSONPath) throws(InputError) -> String? {
    guard let value = root.value(at: path) else { return nil }
    switch value.kind {
    case .string(let text): return text.isEmpty ? nil : text
    case .number(let text): return text
    case .null: return nil
    case .bool, .array, .object:
      throw error(value, path.description, "must be a string or a number, not \(value.kindDescription)")
    }
  }

  /// The first text found at `paths`.
  func firstText(at paths: [JSONPath]) throws(InputError) -> String? {
    for path in paths {
      if let text = try text(at: path) { return text }
    }
    return nil
  }

  /// A time at `path`: Unix seconds or milliseconds (by magnitude) or ISO 8601, no later than `receivedAt`.
  func date(at path: JSONPath) throws(InputError) -> Date? {
    guard let value = root.value(at: path) else { return nil }
    let date: Date?
    switch value.kind {
    case .null: return nil
    case .number(let text): date = Timestamp.date(number: text)
    case .string(let text): date = Timestamp.date(text: text)
    case .bool, .array, .object: date = nil
    }
    guard let date else {
      throw error(value, path.description, "\(value.quoted) is not a time; expected \(Timestamp.expected)")
    }
    return min(date, receivedAt)
  }

  /// The first time found at `paths`.
  func firstDate(at paths: [JSONPath]) throws(InputError) -> Date? {
    for path in paths {
      if let date = try date(at: path) { return date }
    }
    return nil
  }

  /// The interruption level at `path`; nil when absent.
  func level(at path: JSONPath) throws(InputError) -> InterruptionLevel? {
    guard let value = root.value(at: path), !value.isNull else { return nil }
    guard let text = value.string, let level = InterruptionLevel(rawValue: text) else {
      let names = InterruptionLevel.allCases.map(\.rawValue)
      let hint = value.string.map { Suggestion.hint(for: $0, in: names) } ?? ""
      throw error(value, path.description, "\(value.quoted) is not one of \(names.joined(separator: ", "))\(hint)")
    }
    return level
  }
}
