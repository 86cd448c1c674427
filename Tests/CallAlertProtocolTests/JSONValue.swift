/// A JSON value whose objects keep their members in order, so that the generated vector files read in a fixed,
/// logical order (name first, then header, fields and bytes) and regenerate byte for byte.
///
/// Only what the vector files need: integers (no fractions), strings, booleans, null, arrays and objects.
enum JSONValue: Sendable, Equatable, CustomStringConvertible {
  case null
  case bool(Bool)
  case integer(Int64)
  case string(String)
  case array([JSONValue])
  case members([JSONMember])

  /// An object from a literal list of members, in that order.
  static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
    .members(pairs.map { JSONMember(key: $0.key, value: $0.value) })
  }

  /// An integer of any width.
  static func int(_ value: some BinaryInteger) -> JSONValue { .integer(Int64(value)) }

  /// Objects compare member by member regardless of order; everything else structurally.
  static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.integer(let a), .integer(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.array(let a), .array(let b)): return a == b
    case (.members(let a), .members(let b)):
      guard a.count == b.count else { return false }
      return a.allSatisfy { member in b.contains { $0.key == member.key && $0.value == member.value } }
    default: return false
    }
  }

  /// The compact one-line rendering, for failure messages.
  var description: String { renderedInline() }
}

/// One member of a JSON object.
struct JSONMember: Sendable, Equatable {
  var key: String
  var value: JSONValue
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
  init(stringLiteral value: String) { self = .string(value) }
  init(integerLiteral value: Int64) { self = .integer(value) }
  init(booleanLiteral value: Bool) { self = .bool(value) }
  init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  init(nilLiteral: ()) { self = .null }
}

// MARK: - Reading values

/// A vector file that does not have the shape the README documents.
struct VectorFormatError: Error, CustomStringConvertible {
  /// What is wrong, and where.
  let description: String
  init(_ description: String) { self.description = description }
}

extension JSONValue {
  /// The member named `key` of an object, nil when absent or when this is not an object.
  subscript(key: String) -> JSONValue? {
    guard case .members(let members) = self else { return nil }
    return members.first { $0.key == key }?.value
  }

  /// Whether this is JSON null.
  var isNull: Bool { self == .null }

  /// The member named `key`, or an error naming it.
  func member(_ key: String) throws -> JSONValue {
    guard let value = self[key] else { throw VectorFormatError("missing member \"\(key)\" in \(self)") }
    return value
  }

  /// This value as an integer of type `T`, range-checked.
  func integer<T: FixedWidthInteger>(as type: T.Type = T.self) throws -> T {
    guard case .integer(let value) = self, let exact = T(exactly: value) else {
      throw VectorFormatError("expected an integer fitting \(T.self), found \(self)")
    }
    return exact
  }

  /// The integer member named `key`, range-checked for `T`.
  func integer<T: FixedWidthInteger>(_ key: String, as type: T.Type = T.self) throws -> T {
    do { return try member(key).integer(as: T.self) } catch {
      throw VectorFormatError("member \"\(key)\": \(error)")
    }
  }

  /// This value as a string.
  func string() throws -> String {
    guard case .string(let value) = self else { throw VectorFormatError("expected a string, found \(self)") }
    return value
  }

  /// The string member named `key`.
  func string(_ key: String) throws -> String { try member(key).string() }

  /// This value as an array.
  func array() throws -> [JSONValue] {
    guard case .array(let values) = self else { throw VectorFormatError("expected an array, found \(self)") }
    return values
  }

  /// The array member named `key`.
  func array(_ key: String) throws -> [JSONValue] { try member(key).array() }

  /// The hex-string member named `key`, as bytes.
  func hexBytes(_ key: String) throws -> [UInt8] { try bytes(hex: string(key)) }

  /// This value as a list of names (an array of strings).
  func names() throws -> [String] { try array().map { try $0.string() } }
}

// MARK: - Rendering

extension JSONValue {
  /// The widest line an array or object may take before it is broken over several lines.
  static let inlineWidth = 118

  /// The file rendering: two-space indentation, containers that fit on one line kept on one line, a final newline.
  func rendered() -> String {
    var out = ""
    render(into: &out, indent: 0, prefixWidth: 0)
    out.append("\n")
    return out
  }

  /// The whole value on one line.
  func renderedInline() -> String {
    switch self {
    case .null: return "null"
    case .bool(let value): return value ? "true" : "false"
    case .integer(let value): return String(value)
    case .string(let value): return JSONValue.quoted(value)
    case .array(let values): return "[" + values.map { $0.renderedInline() }.joined(separator: ", ") + "]"
    case .members(let members):
      return "{" + members.map { JSONValue.quoted($0.key) + ": " + $0.value.renderedInline() }.joined(separator: ", ")
        + "}"
    }
  }

  private func render(into out: inout String, indent: Int, prefixWidth: Int) {
    let inline = renderedInline()
    let isContainer: Bool
    switch self {
    case .array(let values): isContainer = !values.isEmpty
    case .members(let members): isContainer = !members.isEmpty
    default: isContainer = false
    }
    if !isContainer || indent + prefixWidth + inline.count <= JSONValue.inlineWidth {
      out.append(inline)
      return
    }
    let pad = String(repeating: " ", count: indent + 2)
    switch self {
    case .array(let values):
      out.append("[\n")
      for (index, value) in values.enumerated() {
        out.append(pad)
        value.render(into: &out, indent: indent + 2, prefixWidth: 0)
        out.append(index == values.count - 1 ? "\n" : ",\n")
      }
      out.append(String(repeating: " ", count: indent) + "]")
    case .members(let members):
      out.append("{\n")
      for (index, member) in members.enumerated() {
        let key = JSONValue.quoted(member.key) + ": "
        out.append(pad + key)
        member.value.render(into: &out, indent: indent + 2, prefixWidth: key.count)
        out.append(index == members.count - 1 ? "\n" : ",\n")
      }
      out.append(String(repeating: " ", count: indent) + "}")
    default:
      out.append(inline)
    }
  }

  /// A JSON string literal for `text`.
  private static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out.append("\\\"")
      case "\\": out.append("\\\\")
      case "\n": out.append("\\n")
      case "\t": out.append("\\t")
      case "\r": out.append("\\r")
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}

// MARK: - Parsing

extension JSONValue {
  /// Parses a JSON document (integers only; no fractions or exponents, which the vector files never use).
  static func parse(_ text: String) throws -> JSONValue {
    var parser = JSONParser(bytes: Array(text.utf8))
    let value = try parser.value()
    parser.skipWhitespace()
    guard parser.atEnd else { throw parser.failure("trailing characters") }
    return value
  }
}

/// A recursive-descent JSON reader over UTF-8 bytes.
private struct JSONParser {
  let bytes: [UInt8]
  var index = 0

  init(bytes: [UInt8]) { self.bytes = bytes }

  var atEnd: Bool { index == bytes.count }

  func failure(_ what: String) -> VectorFormatError {
    VectorFormatError("JSON: \(what) at byte \(index)")
  }

  mutating func skipWhitespace() {
    while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
  }

  mutating func expect(_ literal: String) throws {
    for byte in literal.utf8 {
      guard index < bytes.count, bytes[index] == byte else { throw failure("expected \(literal)") }
      index += 1
    }
  }

  mutating func value() throws -> JSONValue {
    skipWhitespace()
    guard index < bytes.count else { throw failure("unexpected end") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try object()
    case UInt8(ascii: "["): return try array()
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"):
      try expect("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expect("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expect("null")
      return .null
    default: return try number()
    }
  }

  mutating func object() throws -> JSONValue {
    index += 1
    var members: [JSONMember] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .members(members)
    }
    while true {
      skipWhitespace()
      let key = try string()
      skipWhitespace()
      try expect(":")
      members.append(JSONMember(key: key, value: try value()))
      skipWhitespace()
      guard index < bytes.count else { throw failure("unterminated object") }
      let separator = bytes[index]
      index += 1
      if separator == UInt8(ascii: "}") { return .members(members) }
      guard separator == UInt8(ascii: ",") else { throw failure("expected , or }") }
    }
  }

  mutating func array() throws -> JSONValue {
    index += 1
    var values: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(values)
    }
    while true {
      values.append(try value())
      skipWhitespace()
      guard index < bytes.count else { throw failure("unterminated array") }
      let separator = bytes[index]
      index += 1
      if separator == UInt8(ascii: "]") { return .array(values) }
      guard separator == UInt8(ascii: ",") else { throw failure("expected , or ]") }
    }
  }

  mutating func string() throws -> String {
    try expect("\"")
    var utf8: [UInt8] = []
    while true {
      guard index < bytes.count else { throw failure("unterminated string") }
      let byte = bytes[index]
      index += 1
      if byte == UInt8(ascii: "\"") { break }
      guard byte == UInt8(ascii: "\\") else {
        utf8.append(byte)
        continue
      }
      guard index < bytes.count else { throw failure("unterminated escape") }
      let escape = bytes[index]
      index += 1
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
      case UInt8(ascii: "n"): utf8.append(0x0A)
      case UInt8(ascii: "t"): utf8.append(0x09)
      case UInt8(ascii: "r"): utf8.append(0x0D)
      case UInt8(ascii: "b"): utf8.append(0x08)
      case UInt8(ascii: "f"): utf8.append(0x0C)
      case UInt8(ascii: "u"):
        guard index + 4 <= bytes.count,
          let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
          let scalar = Unicode.Scalar(code)
        else { throw failure("bad \\u escape") }
        index += 4
        utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
      default: throw failure("bad escape")
      }
    }
    return String(decoding: utf8, as: UTF8.self)
  }

  mutating func number() throws -> JSONValue {
    let start = index
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
    guard let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else {
      throw failure("expected a value")
    }
    if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
      throw failure("fractional numbers are not used by the vector files")
    }
    return .integer(value)
  }
}
