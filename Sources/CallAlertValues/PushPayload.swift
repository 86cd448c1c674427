import CallAlertEngine
import CallAlertText

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

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
  public static let continuousVibrationHint = "steady_vibration"

  /// Where a payload came from, for the locations of its errors: `call.json:3:7`, or `socket:4:40` for a
  /// payload inside line 4 of the control socket, starting at column 29 of that line.
  public struct Origin: Equatable, Sendable {
    /// Names the input: a file, `socket`, `<stdin>`, `push`.
    public var source: String
    /// The line of `source` the payload's first byte is on, from 1.
    public var line: Int
    /// The column of the payload's first byte on that line, from 1 (Unicode scalars).
    public var column: Int

    /// Creates an origin.
    public init(source: String, line: Int = 1, column: Int = 1) {
      self.source = source
      self.line = line
      self.column = column
    }

    /// `source:line:column` of the byte at `offset` in `bytes` (the payload).
    func location(of offset: Int, in bytes: [UInt8]) -> String {
      let (line, column) = TextPosition.of(offset, in: bytes)
      return "\(source):\(self.line + line - 1):\(line == 1 ? self.column + column - 1 : column)"
    }
  }

  /// Reads a payload.
  ///
  /// - Parameters:
  ///   - bytes: The payload, UTF-8 JSON; its top level must be an object.
  ///   - rules: The config's rules, tried before the presets.
  ///   - receivedAt: When the payload arrived. A sent-at time later than this (the sender's clock is ahead)
  ///     is lowered to it, so a wrong clock can never stretch the 30 s cap.
  ///   - source: Names the input in errors: `push:1:17`.
  /// - Returns: A call, a hangup (either without an id when the payload names none), or `ignored` with the
  ///   reason for payloads that are not about calls.
  /// - Throws: ``InputError`` for JSON syntax errors and for values of the wrong kind, located at
  ///   `source:line:column` of the offending byte, with the field path.
  public static func parse(
    json bytes: [UInt8], rules: [PushRule] = [], receivedAt: Date, source: String = "push"
  ) throws(InputError) -> PushNotification {
    try parse(json: bytes, rules: rules, receivedAt: receivedAt, origin: Origin(source: source))
  }

  /// Reads a payload that starts at `origin` (see ``parse(json:rules:receivedAt:source:)``).
  public static func parse(
    json bytes: [UInt8], rules: [PushRule] = [], receivedAt: Date, origin: Origin
  ) throws(InputError) -> PushNotification {
    try read(try Document.parse(bytes, origin: origin), rules: rules, receivedAt: receivedAt)
  }

  /// Reads a payload parsed before (by the control line that carried it): the config's rules, then the
  /// presets. The JSON is not read again.
  public static func read(
    _ document: Document, rules: [PushRule] = [], receivedAt: Date
  ) throws(InputError) -> PushNotification {
    let reader = PushReader(
      root: document.root, bytes: document.bytes, origin: document.base, receivedAt: receivedAt)
    for (index, rule) in rules.enumerated() where reader.matches(rule) {
      return try reader.apply(rule, index: index)
    }
    return try reader.presets()
  }

  /// A payload file's bytes as the text to send in a `push` request's `payload` string, unchanged; invalid
  /// UTF-8 (which a JSON string cannot carry) is an error at its `source:line:column`.
  public static func text(of bytes: [UInt8], source: String) throws(InputError) -> String {
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    // The first byte where decoding fails: the longest valid prefix ends there.
    var decoder = UTF8()
    var iterator = bytes.makeIterator()
    var offset = 0
    decoding: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): offset += UTF8.width(scalar)
      case .emptyInput, .error: break decoding
      }
    }
    let (line, column) = TextPosition.of(offset, in: bytes)
    throw InputError(
      location: "\(source):\(line):\(column)",
      message: "byte 0x\(String(bytes[min(offset, bytes.count - 1)], radix: 16, uppercase: true)) is not UTF-8; "
        + "a push payload is UTF-8 JSON")
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
  let bytes: [UInt8]
  let origin: PushPayload.Origin
  let receivedAt: Date

  func error(_ value: JSONValue?, _ field: String, _ message: String) -> InputError {
    InputError(location: origin.location(of: value?.start ?? root.start, in: bytes), field: field, message: message)
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

  /// Applies a rule that matched. A payload without a value at the rule's `id` is a call or hangup without
  /// an id, as with the presets.
  func apply(_ rule: PushRule, index: Int) throws(InputError) -> PushNotification {
    let id = try rule.id.map { (path) throws(InputError) in try callID(at: path) } ?? nil
    guard rule.kind == .call else {
      if let id { return .hangup(callID: id) }
      return .hangupWithoutID(
        callerNumber: try rule.caller.map { (path) throws(InputError) in try text(at: path) } ?? nil)
    }
    var call = IncomingCall(id: id ?? "")
    if let path = rule.caller { call.callerNumber = try text(at: path) }
    if let path = rule.name { call.callerName = try text(at: path) }
    if let path = rule.sentAt { call.sentAt = try date(at: path) }
    if let path = rule.level { call.level = try level(at: path) ?? .active }
    if let path = rule.pattern { call.patternHint = try text(at: path) }
    return id == nil ? .callWithoutID(call) : .call(call)
  }

  /// A call id at `path`: text (see ``text(at:)``) that ``CallID`` accepts; nil when absent.
  func callID(at path: JSONPath) throws(InputError) -> String? {
    guard let id = try text(at: path) else { return nil }
    if let problem = CallID.problem(id) {
      throw error(root.value(at: path), path.description, problem)
    }
    return id
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
