import Foundation

/// A JSON value that keeps its keys in the order they were given, so bench-results.json reads like the table.
indirect enum JSONValue: Sendable {
  /// An object, keys in order.
  case object([(String, JSONValue)])
  /// An array.
  case array([JSONValue])
  /// A number, written with up to 6 significant decimals; non-finite numbers are written as null.
  case number(Double)
  /// An integer.
  case int(Int)
  /// A string.
  case string(String)
  /// true or false.
  case bool(Bool)
  /// null.
  case null
  /// JSON text written elsewhere (a child bench's figures), embedded as it is, re-indented.
  case raw(String)

  /// The value as indented JSON text.
  func text(indent: String = "") -> String {
    let inner = indent + "  "
    switch self {
    case .object(let members):
      if members.isEmpty { return "{}" }
      let lines = members.map { "\(inner)\(JSONValue.quote($0.0)): \($0.1.text(indent: inner))" }
      return "{\n" + lines.joined(separator: ",\n") + "\n\(indent)}"
    case .array(let items):
      if items.isEmpty { return "[]" }
      return "[\n" + items.map { inner + $0.text(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
    case .number(let value):
      guard value.isFinite else { return "null" }
      if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
      return JSONValue.format(value)
    case .int(let value): return String(value)
    case .string(let value): return JSONValue.quote(value)
    case .bool(let value): return value ? "true" : "false"
    case .null: return "null"
    case .raw(let text):
      return text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + indent)
    }
  }

  /// A number with 6 significant digits, without exponent for everyday magnitudes.
  static func format(_ value: Double) -> String {
    let magnitude = abs(value)
    let decimals = magnitude >= 1_000 ? 1 : magnitude >= 1 ? 4 : 6
    var text = String(format: "%.\(decimals)f", value)
    while text.contains("."), text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  private static func quote(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}
