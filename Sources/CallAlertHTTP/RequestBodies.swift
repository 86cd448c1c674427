import CallAlertControl
import CallAlertEngine
import CallAlertText
import CallAlertValues
internal import Hummingbird

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `PUT /v1/dnd`'s body: `{"mode":"on"}`, `{"silent":true}`, or both; each becomes its control request. With
/// `mode`, `until` (ISO 8601 or Unix time) ends the switch at that time (`{"mode":"on","until":"…"}`): then
/// the configured mode applies again.
enum DoNotDisturbBody {
  static let fields = ["mode", "silent", "until"]

  static func parse(_ bytes: [UInt8]) throws(ProblemDocument) -> [ControlRequest] {
    func place(_ offset: Int) -> String {
      let position = TextPosition.of(offset, in: bytes)
      return "body:\(position.line):\(position.column)"
    }
    let root: JSONValue
    do {
      root = try JSONParser.parse(bytes)
    } catch {
      throw .badInput("JSON syntax error: \(error.message)", field: nil, location: place(error.offset))
    }
    guard let members = root.members else {
      throw .badInput(
        "the body must be a JSON object such as {\"mode\":\"on\"}, not \(root.kindDescription)", field: nil,
        location: place(root.start))
    }
    var requests: [ControlRequest] = []
    var mode: DoNotDisturbMode?
    var until: Date?
    var seen: [String] = []
    for member in members {
      guard fields.contains(member.key) else {
        throw .badInput(
          "unknown field\(Suggestion.hint(for: member.key, in: fields)); this takes mode, until, silent",
          field: DisplayText.excerpt(member.key), location: place(member.keyOffset))
      }
      guard !seen.contains(member.key) else {
        throw .badInput("appears twice; give each field once", field: member.key, location: place(member.keyOffset))
      }
      seen.append(member.key)
      let value = member.value
      if member.key == "mode" {
        let modes = ["on", "off", "scheduled"]
        guard let text = value.string, let chosen = DoNotDisturbMode(rawValue: text) else {
          let hint = value.string.map { Suggestion.hint(for: $0, in: modes) } ?? ""
          throw .badInput(
            "\(value.quoted) is not one of \(modes.joined(separator: ", "))\(hint)", field: "mode",
            location: place(value.start))
        }
        mode = chosen
      } else if member.key == "until" {
        let date: Date? =
          switch value.kind {
          case .number(let text): Timestamp.date(number: text)
          case .string(let text): Timestamp.date(text: text)
          default: nil
          }
        guard let date else {
          throw .badInput(
            "\(value.quoted) is not a time; expected \(Timestamp.expected)", field: "until",
            location: place(value.start))
        }
        until = date
      } else {
        guard case .bool(let on) = value.kind else {
          throw .badInput("\(value.quoted) is not true or false", field: "silent", location: place(value.start))
        }
        requests.append(.input(.setSilent(on)))
      }
    }
    if until != nil, mode == nil {
      throw .badInput("until ends a switch of mode: give \"mode\" too", field: "until", location: "body")
    }
    if let mode { requests.insert(.input(.setDoNotDisturb(mode, until: until)), at: 0) }
    guard !requests.isEmpty else {
      throw .badInput(
        "give \"mode\" (on, off, scheduled), \"silent\" (true, false), or both", field: nil, location: "body")
    }
    return requests
  }
}

/// `GET /v1/history`'s query: `missed=true|false`, `limit=1...1000`.
enum HistoryQuery {
  static let parameters = ["missed", "limit"]

  static func parse(
    _ query: some Sequence<(key: Substring, value: Substring)>
  ) throws(ProblemDocument) -> ControlRequest {
    var missed = false
    var limit = ControlRequest.defaultHistoryLimit
    for (name, value) in query {
      switch name {
      case "missed":
        switch value {
        case "true", "1": missed = true
        case "false", "0": missed = false
        default:
          throw .badInput(
            "'\(DisplayText.excerpt(String(value)))' is not true or false", field: "missed", location: "query")
        }
      case "limit":
        guard let number = Int(value), (1...ControlRequest.maximumHistoryLimit).contains(number) else {
          throw .badInput(
            "'\(DisplayText.excerpt(String(value)))' is not a whole number from 1 to "
              + "\(ControlRequest.maximumHistoryLimit)", field: "limit", location: "query")
        }
        limit = number
      default:
        throw .badInput(
          "unknown parameter\(Suggestion.hint(for: String(name), in: parameters)); this takes missed, limit",
          field: DisplayText.excerpt(String(name)), location: "query")
      }
    }
    return .history(missedOnly: missed, limit: limit)
  }
}
