/// Builds JSON text by hand, so that event and response lines keep a fixed, readable key order.
package enum JSONText {
  /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
  package static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\u{08}": result += "\\b"
      case "\u{0C}": result += "\\f"
      case "\u{00}"..."\u{1F}", "\u{2028}", "\u{2029}":
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  /// A string literal, or `null`.
  package static func quoted(_ text: String?) -> String {
    text.map { quoted($0) } ?? "null"
  }

  /// An object from members whose values are already JSON text, in the order given.
  package static func object(_ members: [(String, String)]) -> String {
    "{" + members.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
  }

  /// An array of strings.
  package static func array(_ strings: [String]) -> String {
    "[" + strings.map { quoted($0) }.joined(separator: ",") + "]"
  }
}
