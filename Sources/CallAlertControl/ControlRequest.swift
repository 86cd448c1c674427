import CallAlertEngine
import CallAlertText
import CallAlertValues

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

/// One request of the control protocol: a JSON object per line, on standard input and on the Unix control
/// socket (see docs/CONFIG.md, "Control protocol").
///
/// ```json
/// {"type":"call","id":"c1","caller":"+4930123","name":"Alice","level":"time-sensitive"}
/// {"type":"hangup","id":"c1"}
/// {"type":"history","missed":true,"limit":20}
/// ```
public enum ControlRequest: Equatable, Sendable {
  /// Something for the engine: `call`, `hangup`, `answered`, `ack`, `dnd`, `silent`.
  case input(EngineInput)
  /// A push payload, parsed once here: an object inside the line (its errors located in the line), or the
  /// text of a string `payload` (the file `callalert notify push` read, unchanged; its errors located in the
  /// `file` field's name, or `push`, from line 1, column 1). ``PushPayload/read(_:rules:receivedAt:)`` applies
  /// the config's rules to it without reading the JSON again.
  case push(PushPayload.Document)
  /// Ask for the daemon's status.
  case status
  /// Ask for recent calls, newest first.
  case history(missedOnly: Bool, limit: Int)
  /// Re-read the config file.
  case reload
  /// Accept a phone's pending KDE Connect pairing request: the phone by the name it shows, or its id
  /// (`callalert kdeconnect pair <device>`, docs/PHONE.md).
  case pair(device: String)

  /// The `limit` of a `history` request that gives none.
  public static let defaultHistoryLimit = 20
  /// The largest `limit` a `history` request may ask for.
  public static let maximumHistoryLimit = 1_000

  /// The request types and the fields each may have besides `type`.
  public static let fields: KeyValuePairs<String, [String]> = [
    "call": ["id", "caller", "name", "sent_at", "level", "pattern"],
    "hangup": ["id"],
    "answered": ["id"],
    "ack": ["board", "id"],
    "dnd": ["mode", "until"],
    "silent": ["on"],
    "push": ["payload", "file"],
    "status": [],
    "history": ["missed", "limit"],
    "reload": [],
    "pair": ["device"],
  ]

  /// Parses one line.
  ///
  /// - Parameters:
  ///   - line: The line, without its terminator.
  ///   - source: Names the input in errors: `<stdin>`, `socket`.
  ///   - lineNumber: The line's number in that input, from 1.
  /// - Throws: ``InputError`` located at `source:line:column`, the column of the offending value (or key), with
  ///   the field's name. Unknown fields are errors, so a typo never drops data silently. Blank lines are errors
  ///   too (callers skip them).
  public static func parse(line: String, source: String, lineNumber: Int) throws(InputError) -> ControlRequest {
    try parse(bytes: Array(line.utf8), source: source, lineNumber: lineNumber)
  }

  /// Parses one line as the bytes that arrived, without its terminator: invalid UTF-8 is refused with its
  /// place, never replaced (two ids that differ only in a broken byte must not become one). See
  /// ``parse(line:source:lineNumber:)``.
  public static func parse(bytes: [UInt8], source: String, lineNumber: Int) throws(InputError) -> ControlRequest {
    let reader = ControlLineReader(bytes: bytes, source: source, lineNumber: lineNumber)
    return try reader.request()
  }
}

/// Reads one control line, knowing where each value sits for error messages.
struct ControlLineReader {
  let bytes: [UInt8]
  let source: String
  let lineNumber: Int

  /// `source:line:column` of a byte offset; columns count Unicode scalars from 1.
  func location(_ offset: Int) -> String {
    // A control line is one line; an HTTP body may have several (pretty-printed JSON).
    let position = TextPosition.of(offset, in: bytes)
    return "\(source):\(lineNumber + position.line - 1):\(position.column)"
  }

  func error(_ offset: Int, _ field: String, _ message: String) -> InputError {
    InputError(location: location(offset), field: field, message: message)
  }

  /// The request the line asks for; with `impliedType` (an HTTP route's body), `type` is that type's and the
  /// line may leave it out. `types` narrows what `type` may be, and `defaultType` is taken when it is left out.
  func request(
    impliedType: String? = nil, types: [String] = ControlRequest.fields.map(\.key), defaultType: String? = nil
  ) throws(InputError) -> ControlRequest {
    guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else {
      guard let impliedType else {
        throw error(0, "", "empty line; send one JSON object per line, e.g. {\"type\":\"status\"}")
      }
      // An HTTP body: the control socket's lines and their "type" are not what its caller sees.
      let example = impliedType == "call" ? ", e.g. {\"id\":\"c1\",\"caller\":\"+4930123456\"}" : ""
      throw error(0, "", "the body is empty; send a JSON object\(example)")
    }
    let root: JSONValue
    do {
      root = try JSONParser.parse(bytes)
    } catch {
      throw self.error(error.offset, "", "JSON syntax error: \(error.message)")
    }
    guard let members = root.members else {
      throw error(
        root.start, "", "a request must be a JSON object such as {\"type\":\"status\"}, not \(root.kindDescription)")
    }
    var seen: Set<String> = []
    for member in members where !seen.insert(member.key).inserted {
      throw error(member.keyOffset, member.key, "appears twice; give each field once")
    }
    if let impliedType, let allowed = ControlRequest.fields.first(where: { $0.key == impliedType })?.value {
      if let typeValue = root["type"], typeValue.string != impliedType {
        throw error(typeValue.start, "type", "\(typeValue.quoted) does not belong here; leave \"type\" out")
      }
      for member in members where member.key != "type" && !allowed.contains(member.key) {
        let hint = Suggestion.hint(for: member.key, in: allowed)
        let known = allowed.isEmpty ? "this takes no fields" : "this takes \(allowed.joined(separator: ", "))"
        throw error(member.keyOffset, member.key, "unknown field\(hint); \(known)")
      }
      return try request(type: impliedType, root)
    }
    guard let typeValue = root["type"] else {
      guard let defaultType, let allowed = ControlRequest.fields.first(where: { $0.key == defaultType })?.value else {
        throw error(
          root.start, "type", "missing; say what the line is with \"type\": one of \(types.joined(separator: ", "))")
      }
      try checkFields(members, allowed: allowed, of: defaultType)
      return try request(type: defaultType, root)
    }
    guard let type = typeValue.string, types.contains(type),
      let allowed = ControlRequest.fields.first(where: { $0.key == type })?.value
    else {
      let hint = typeValue.string.map { Suggestion.hint(for: $0, in: types) } ?? ""
      throw error(typeValue.start, "type", "\(typeValue.quoted) is not one of \(types.joined(separator: ", "))\(hint)")
    }
    try checkFields(members, allowed: allowed, of: type)
    return try request(type: type, root)
  }

  /// Refuses a field that `type` does not take, suggesting the closest one.
  private func checkFields(_ members: [JSONMember], allowed: [String], of type: String) throws(InputError) {
    for member in members where member.key != "type" && !allowed.contains(member.key) {
      let hint = Suggestion.hint(for: member.key, in: allowed)
      let known = allowed.isEmpty ? "\(type) takes no other fields" : "\(type) takes \(allowed.joined(separator: ", "))"
      throw error(member.keyOffset, member.key, "unknown field\(hint); \(known)")
    }
  }

  private func request(type: String, _ root: JSONValue) throws(InputError) -> ControlRequest {
    switch type {
    case "call":
      let id = try callID(root, required: true, type: type) ?? ""
      return .input(
        .call(
          IncomingCall(
            id: id, callerNumber: try optionalText(root, "caller"), callerName: try optionalText(root, "name"),
            sentAt: try sentAt(root), level: try level(root), patternHint: try optionalText(root, "pattern"))))
    case "hangup":
      return .input(.hangup(callID: try callID(root, required: true, type: type) ?? ""))
    case "answered":
      return .input(.answered(callID: try callID(root, required: false, type: type)))
    case "ack":
      let board = try optionalText(root, "board")
      if let board, let problem = CallID.problem(board), let value = root["board"] {
        throw error(value.start, "board", problem)
      }
      // `id`: one missed call (the page's button beside it); `board` is the board's button, for all of them.
      if let value = root["id"] {
        guard (board ?? "").isEmpty else {
          throw error(value.start, "id", "give \"id\" (one missed call) or \"board\", not both")
        }
        return .input(.acknowledgeMissed(callID: try callID(root, required: true, type: type) ?? ""))
      }
      return .input(.acknowledge(board: board))
    case "dnd":
      let value = try required(root, "mode", type: type)
      let modes = ["on", "off", "scheduled"]
      guard let text = value.string, let mode = DoNotDisturbMode(rawValue: text) else {
        let hint = value.string.map { Suggestion.hint(for: $0, in: modes) } ?? ""
        throw error(value.start, "mode", "\(value.quoted) is not one of \(modes.joined(separator: ", "))\(hint)")
      }
      return .input(.setDoNotDisturb(mode, until: try time(root, "until")))
    case "silent":
      return .input(.setSilent(try bool(try required(root, "on", type: type), "on")))
    case "push":
      let value = try required(root, "payload", type: type)
      let file = try optionalText(root, "file")
      if let text = value.string {
        return .push(
          try PushPayload.Document.parse(
            Array(text.utf8), origin: PushPayload.Origin(source: file ?? "push"), form: .text(file: file)))
      }
      guard value.members != nil else {
        throw error(
          value.start, "payload",
          "must be the push payload as a JSON object, or its text as a string, not \(value.kindDescription)")
      }
      return .push(
        PushPayload.Document(
          root: value, bytes: bytes, base: PushPayload.Origin(source: source, line: lineNumber), form: .object))
    case "history":
      let missed = try root["missed"].map { (value) throws(InputError) in try bool(value, "missed") } ?? false
      var limit = ControlRequest.defaultHistoryLimit
      if let value = root["limit"] {
        guard case .number(let text) = value.kind, let number = Int(text),
          (1...ControlRequest.maximumHistoryLimit).contains(number)
        else {
          throw error(
            value.start, "limit",
            "\(value.quoted) is not a whole number from 1 to \(ControlRequest.maximumHistoryLimit)")
        }
        limit = number
      }
      return .history(missedOnly: missed, limit: limit)
    case "status": return .status
    case "pair":
      let value = try required(root, "device", type: type)
      guard let device = value.string, !device.isEmpty, CallID.problem(device) == nil else {
        throw error(value.start, "device", "\(value.quoted) is not a device's name or id")
      }
      return .pair(device: device)
    default: return .reload
    }
  }

  private func required(_ root: JSONValue, _ field: String, type: String) throws(InputError) -> JSONValue {
    guard let value = root[field] else { throw error(root.start, field, "missing; \(type) needs \"\(field)\"") }
    return value
  }

  /// A call id: a non-empty string, or a whole number (taken as its digits).
  private func callID(_ root: JSONValue, required: Bool, type: String) throws(InputError) -> String? {
    guard let value = root["id"] else {
      if required { throw error(root.start, "id", "missing; \(type) needs \"id\"") }
      return nil
    }
    if value.isNull && !required { return nil }
    switch value.kind {
    case .string(let text) where !text.isEmpty:
      if let problem = CallID.problem(text) { throw error(value.start, "id", problem) }
      return text
    case .number(let text)
    where text.utf8.count <= CallID.maximumBytes
      && text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }):
      return text
    default:
      throw error(value.start, "id", "\(value.quoted) is not a call id; use a non-empty string such as \"c1\"")
    }
  }

  /// A string or null; an empty string is null.
  private func optionalText(_ root: JSONValue, _ field: String) throws(InputError) -> String? {
    guard let value = root[field], !value.isNull else { return nil }
    guard let text = value.string else {
      throw error(value.start, field, "must be a string, not \(value.kindDescription) (\(value.quoted))")
    }
    return text.isEmpty ? nil : text
  }

  private func bool(_ value: JSONValue, _ field: String) throws(InputError) -> Bool {
    guard case .bool(let flag) = value.kind else {
      throw error(value.start, field, "\(value.quoted) is not true or false")
    }
    return flag
  }

  private func sentAt(_ root: JSONValue) throws(InputError) -> Date? { try time(root, "sent_at") }

  private func time(_ root: JSONValue, _ key: String) throws(InputError) -> Date? {
    guard let value = root[key], !value.isNull else { return nil }
    let date: Date?
    switch value.kind {
    case .number(let text): date = Timestamp.date(number: text)
    case .string(let text): date = Timestamp.date(text: text)
    default: date = nil
    }
    guard let date else {
      throw error(value.start, key, "\(value.quoted) is not a time; expected \(Timestamp.expected)")
    }
    return date
  }

  private func level(_ root: JSONValue) throws(InputError) -> InterruptionLevel {
    guard let value = root["level"], !value.isNull else { return .active }
    guard let text = value.string, let level = InterruptionLevel(rawValue: text) else {
      let names = InterruptionLevel.allCases.map(\.rawValue)
      let hint = value.string.map { Suggestion.hint(for: $0, in: names) } ?? ""
      throw error(value.start, "level", "\(value.quoted) is not one of \(names.joined(separator: ", "))\(hint)")
    }
    return level
  }
}
