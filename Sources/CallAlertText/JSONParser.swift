/// A JSON syntax error at a byte offset.
package struct JSONSyntaxError: Error, Equatable {
  /// The offset of the byte where reading failed (the input's length for a premature end).
  package var offset: Int
  /// What is wrong.
  package var message: String
}

/// A strict RFC 8259 reader over UTF-8 bytes that records where every value starts and ends.
///
/// Foundation's `JSONSerialization` loses positions (and, on Linux, the difference between `true` and `1`);
/// control lines need the column of the offending value and push payloads the byte offset of a syntax error.
package struct JSONParser {
  /// Nesting deeper than this is refused, so a hostile payload cannot exhaust the stack.
  package static let maximumDepth = 256

  private let bytes: [UInt8]
  private var index = 0
  private var depth = 0

  private init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Reads exactly one JSON value, with optional surrounding whitespace (and a leading UTF-8 byte-order mark).
  package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
    var parser = JSONParser(bytes)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
    parser.skipWhitespace()
    let value = try parser.value()
    parser.skipWhitespace()
    guard parser.index == bytes.count else {
      throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value; send one value per message")
    }
    return value
  }

  /// Reads a UTF-8 string's bytes.
  package static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    try parse(Array(text.utf8))
  }

  private func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
    JSONSyntaxError(offset: offset ?? index, message: message)
  }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  private func describeCurrent() -> String {
    guard let byte = current else { return "end of input" }
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x\(String(byte, radix: 16, uppercase: true))"
  }

  private mutating func skipWhitespace() {
    while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
  }

  private mutating func value() throws(JSONSyntaxError) -> JSONValue {
    guard let byte = current else { throw error("unexpected end of input; expected a value") }
    let start = index
    switch byte {
    case UInt8(ascii: "{"): return try object()
    case UInt8(ascii: "["): return try array()
    case UInt8(ascii: "\""): return JSONValue(kind: .string(try string()), start: start, end: index)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return JSONValue(kind: .number(try number()), start: start, end: index)
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    default: throw error("unexpected \(describeCurrent()); expected a value")
    }
  }

  private mutating func literal(_ word: String, _ kind: JSONValue.Kind) throws(JSONSyntaxError) -> JSONValue {
    let start = index
    for (position, expected) in word.utf8.enumerated() {
      guard current == expected else {
        // Only the first letter matched: the text is no literal at all (`type=status`), not a broken one (`tru`).
        if position == 1 {
          throw error("unexpected '\(Character(Unicode.Scalar(bytes[start])))'; expected a value", at: start)
        }
        throw error("unexpected \(describeCurrent()); expected '\(word)'")
      }
      index += 1
    }
    return JSONValue(kind: kind, start: start, end: index)
  }

  private mutating func enter() throws(JSONSyntaxError) {
    depth += 1
    guard depth <= JSONParser.maximumDepth else {
      throw error("nesting deeper than \(JSONParser.maximumDepth) levels")
    }
  }

  private mutating func object() throws(JSONSyntaxError) -> JSONValue {
    let start = index
    try enter()
    index += 1
    var members: [JSONMember] = []
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      index += 1
      depth -= 1
      return JSONValue(kind: .object(members), start: start, end: index)
    }
    while true {
      skipWhitespace()
      guard current == UInt8(ascii: "\"") else {
        throw error("unexpected \(describeCurrent()); expected a member name in double quotes")
      }
      let keyOffset = index
      let key = try string()
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { throw error("unexpected \(describeCurrent()); expected ':'") }
      index += 1
      skipWhitespace()
      members.append(JSONMember(key: key, keyOffset: keyOffset, value: try value()))
      skipWhitespace()
      if current == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard current == UInt8(ascii: "}") else { throw error("unexpected \(describeCurrent()); expected ',' or '}'") }
      index += 1
      depth -= 1
      return JSONValue(kind: .object(members), start: start, end: index)
    }
  }

  private mutating func array() throws(JSONSyntaxError) -> JSONValue {
    let start = index
    try enter()
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      index += 1
      depth -= 1
      return JSONValue(kind: .array(elements), start: start, end: index)
    }
    while true {
      skipWhitespace()
      elements.append(try value())
      skipWhitespace()
      if current == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard current == UInt8(ascii: "]") else { throw error("unexpected \(describeCurrent()); expected ',' or ']'") }
      index += 1
      depth -= 1
      return JSONValue(kind: .array(elements), start: start, end: index)
    }
  }

  private mutating func number() throws(JSONSyntaxError) -> String {
    let start = index
    func digits(_ parser: inout JSONParser) -> Int {
      var count = 0
      while let byte = parser.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
        parser.index += 1
        count += 1
      }
      return count
    }
    if current == UInt8(ascii: "-") { index += 1 }
    if current == UInt8(ascii: "0") {
      index += 1
      if let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
        throw error("a number cannot have a leading zero")
      }
    } else if digits(&self) == 0 {
      throw error("unexpected \(describeCurrent()); expected a digit")
    }
    if current == UInt8(ascii: ".") {
      index += 1
      guard digits(&self) > 0 else { throw error("unexpected \(describeCurrent()); expected a digit after '.'") }
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      index += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      guard digits(&self) > 0 else { throw error("unexpected \(describeCurrent()); expected a digit in the exponent") }
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  /// Reads a string starting at its opening quote; leaves `index` after the closing quote.
  private mutating func string() throws(JSONSyntaxError) -> String {
    let open = index
    index += 1
    var buffer: [UInt8] = []
    while true {
      guard let byte = current else { throw error("unterminated string (opened at byte \(open))") }
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        guard let text = String(validating: buffer, as: UTF8.self) else {
          throw error("the string is not valid UTF-8", at: open)
        }
        return text
      case UInt8(ascii: "\\"):
        try escape(into: &buffer)
      case 0..<0x20:
        throw error("a control character (0x\(String(byte, radix: 16, uppercase: true))) must be escaped in a string")
      default:
        buffer.append(byte)
        index += 1
      }
    }
  }

  private mutating func escape(into buffer: inout [UInt8]) throws(JSONSyntaxError) {
    let start = index
    index += 1
    guard let byte = current else { throw error("unterminated string") }
    index += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
    case UInt8(ascii: "b"): buffer.append(0x08)
    case UInt8(ascii: "f"): buffer.append(0x0C)
    case UInt8(ascii: "n"): buffer.append(0x0A)
    case UInt8(ascii: "r"): buffer.append(0x0D)
    case UInt8(ascii: "t"): buffer.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try hex4()
      if (0xD800..<0xDC00).contains(scalar) {
        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
          throw error(
            "a high surrogate \\u\(String(scalar, radix: 16, uppercase: true)) must be followed by a low one", at: start
          )
        }
        index += 2
        let low = try hex4()
        guard (0xDC00..<0xE000).contains(low) else { throw error("expected a low surrogate", at: index - 6) }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(scalar) {
        throw error("a lone low surrogate cannot stand for a character", at: start)
      }
      // Every value that reaches here is a valid scalar (surrogates were handled above).
      buffer.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
    default:
      throw error("'\\\(Character(Unicode.Scalar(byte)))' is not a JSON escape", at: start)
    }
  }

  private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = current else { throw error("unterminated \\u escape") }
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw error("unexpected \(describeCurrent()) in a \\u escape; expected 4 hex digits")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }
}
