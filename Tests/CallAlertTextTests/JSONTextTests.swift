import Testing

@testable import CallAlertText

/// The JSON writer: the byte-level quoting escapes exactly what the scalar-by-scalar definition escapes, and its
/// output reads back as the text it was given.
@Suite struct JSONTextTests {
  /// The definition the fast path must match: each scalar escaped on its own.
  private static func quotedScalarByScalar(_ text: String) -> String {
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

  @Test(arguments: [
    "", "plain", "+1 415 555 0101", #"a"b\c"#, "line\nbreak\r\ttab", "\u{08}\u{0C}\u{00}\u{1F}\u{7F}",
    "Zoë Müller", "€ 5 – 10 … ‰", "\u{2028}sep\u{2029}", "\u{2027}\u{202A}", "📞 call", "E2 at the end: \u{2028}",
    "\u{E2}", "ends with a quote\"",
  ])
  func quotingMatchesTheDefinition(text: String) throws {
    let quoted = JSONText.quoted(text)
    #expect(quoted == Self.quotedScalarByScalar(text))
    guard case .string(let back) = try JSONParser.parse(quoted).kind else {
      Issue.record("not a string: \(quoted)")
      return
    }
    #expect(back == text)
  }

  @Test func quotingMatchesTheDefinitionOnGeneratedText() throws {
    let alphabet: [Unicode.Scalar] = [
      "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{00}", "\u{01}", "\u{1F}", "\u{7F}", "é", "€",
      "\u{2028}", "\u{2029}", "\u{2026}", "\u{E000}", "😀", "\u{0800}",
    ]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<2_000 {
      var text = ""
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      for _ in 0..<Int(state >> 59) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        text.unicodeScalars.append(alphabet[Int(state >> 33) % alphabet.count])
      }
      #expect(JSONText.quoted(text) == Self.quotedScalarByScalar(text), "\(Array(text.unicodeScalars))")
    }
  }

  @Test func objectsAndArraysKeepTheirOrder() {
    #expect(JSONText.object([]) == "{}")
    #expect(JSONText.object([("b", "1"), ("a", #""x""#), ("q\"", "null")]) == #"{"b":1,"a":"x","q\"":null}"#)
    #expect(JSONText.array([]) == "[]")
    #expect(JSONText.array(["desk", "bed\n"]) == #"["desk","bed\n"]"#)
    #expect(JSONText.quoted(nil as String?) == "null")
  }
}
