import Testing

@testable import CallAlertText

/// The JSON reader: values, positions, and syntax errors at the right byte.
@Suite struct JSONParserTests {
  @Test(arguments: [
    ("0", "0"), ("-12", "-12"), ("3.25", "3.25"), ("1e3", "1e3"), ("-0.5E-2", "-0.5E-2"),
    ("1763762400250", "1763762400250"),
  ])
  func numbersKeepTheirText(text: String, kept: String) throws {
    guard case .number(let number) = try JSONParser.parse(text).kind else {
      Issue.record("not a number")
      return
    }
    #expect(number == kept)
  }

  @Test(arguments: [
    (#""plain""#, "plain"), (#""a\"b\\c\/d""#, "a\"b\\c/d"), (#""\n\r\t\b\f""#, "\n\r\t\u{08}\u{0C}"),
    (#""\u00e9\u20AC""#, "é€"), (#""\ud83d\udcde""#, "📞"), ("\"caf\u{E9} 📞\"", "café 📞"), (#""""#, ""),
  ])
  func stringsAreUnescaped(text: String, value: String) throws {
    #expect(try JSONParser.parse(text).string == value)
  }

  @Test func valuesRecordWhereTheyAre() throws {
    let text = #"{"a": [1, {"b": true}], "c": null}"#
    let root = try JSONParser.parse(text)
    #expect(root.start == 0 && root.end == text.utf8.count)
    let a = try #require(root["a"])
    #expect(a.start == 6 && a.end == 22)
    let b = try #require(a.value(at: "[1].b"))
    #expect(b.start == 16 && b.scalarText == "true")
    #expect(root.members?.map(\.keyOffset) == [1, 24])
    #expect(root["c"]?.isNull == true)
    #expect(root.value(at: "a[2]") == nil)
    #expect(root.value(at: "a.b") == nil)
  }

  @Test func theLastOfRepeatedKeysWins() throws {
    #expect(try JSONParser.parse(#"{"id": "a", "id": "b"}"#)["id"]?.string == "b")
  }

  @Test func aByteOrderMarkAndSurroundingWhitespaceAreAllowed() throws {
    #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array(" \n\t{}\r\n ".utf8)).members?.isEmpty == true)
  }

  @Test(arguments: [
    ("", 0, "unexpected end of input; expected a value"),
    ("{", 1, "unexpected end of input; expected a member name in double quotes"),
    (#"{"a": }"#, 6, "unexpected '}'; expected a value"),
    (#"{"a" 1}"#, 5, "unexpected '1'; expected ':'"),
    (#"{"a": 1,}"#, 8, "unexpected '}'; expected a member name in double quotes"),
    (#"{"a": 1 "b": 2}"#, 8, "unexpected '\"'; expected ',' or '}'"),
    ("[1, 2", 5, "unexpected end of input; expected ',' or ']'"),
    ("[01]", 2, "a number cannot have a leading zero"),
    ("[1.]", 3, "unexpected ']'; expected a digit after '.'"),
    ("[-]", 2, "unexpected ']'; expected a digit"),
    ("[1e]", 3, "unexpected ']'; expected a digit in the exponent"),
    ("tru", 3, "unexpected end of input; expected 'true'"),
    ("nul!", 3, "unexpected '!'; expected 'null'"),
    ("falsy", 4, "unexpected 'y'; expected 'false'"),
    ("[t]", 1, "unexpected 't'; expected a value"),
    ("nope", 0, "unexpected 'n'; expected a value"),
    (#""abc"#, 4, "unterminated string (opened at byte 0)"),
    ("\"a\tb\"", 2, "a control character (0x9) must be escaped in a string"),
    (#""\x""#, 1, "'\\x' is not a JSON escape"),
    (#""\u12G4""#, 5, "unexpected 'G' in a \\u escape; expected 4 hex digits"),
    (#""\ud83d""#, 1, "a high surrogate \\uD83D must be followed by a low one"),
    (#""\udcde""#, 1, "a lone low surrogate cannot stand for a character"),
    ("{} {}", 3, "unexpected '{' after the JSON value; send one value per message"),
    ("'a'", 0, "unexpected '''; expected a value"),
  ])
  func syntaxErrorsNameTheirByte(text: String, offset: Int, message: String) {
    #expect(throws: JSONSyntaxError(offset: offset, message: message)) { try JSONParser.parse(text) }
  }

  @Test func invalidUTF8InAStringIsAnError() {
    #expect(throws: JSONSyntaxError(offset: 0, message: "the string is not valid UTF-8")) {
      try JSONParser.parse([0x22, 0xC3, 0x28, 0x22])
    }
  }

  @Test func nestingIsLimited() throws {
    let deep =
      String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
    _ = try JSONParser.parse(deep)
    let tooDeep = "[" + deep + "]"
    #expect(throws: JSONSyntaxError(offset: JSONParser.maximumDepth, message: "nesting deeper than 256 levels")) {
      try JSONParser.parse(tooDeep)
    }
  }

  @Test(arguments: ["plain", "quote \" and \\ backslash", "line\nbreak\ttab", "\u{01}\u{1F}", "é 📞", "\u{2028}"])
  func quotedTextReadsBackAsTheSameString(text: String) throws {
    #expect(try JSONParser.parse(JSONText.quoted(text)).string == text)
  }
}
