/// Builds JSON text by hand, so that event and response lines keep a fixed, readable key order.
///
/// Every event line and answer goes through here, so the common case (text with nothing to escape) is one scan
/// of the UTF-8 bytes and one append; only text that needs escapes is rebuilt byte by byte.
package enum JSONText {
  /// `text` as a JSON string literal: quotes, backslashes and control characters escaped, and U+2028 and
  /// U+2029 too (JavaScript that embeds the line would otherwise end a string at them).
  package static func quoted(_ text: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 2)
    appendQuoted(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A string literal, or `null`.
  package static func quoted(_ text: String?) -> String {
    text.map { quoted($0) } ?? "null"
  }

  /// An object from members whose values are already JSON text, in the order given.
  package static func object(_ members: [(String, String)]) -> String {
    var length = 2
    for (key, value) in members { length += key.utf8.count + value.utf8.count + 4 }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(length)
    bytes.append(UInt8(ascii: "{"))
    for (index, (key, value)) in members.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      appendQuoted(key, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      bytes += value.utf8
    }
    bytes.append(UInt8(ascii: "}"))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// An array of strings.
  package static func array(_ strings: [String]) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "[")]
    for (index, string) in strings.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      appendQuoted(string, to: &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `text` as a JSON string literal to UTF-8 `bytes`: built as bytes, not by appending to a `String`,
  /// which checks every join for a grapheme that spans it.
  package static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    let start = bytes.count
    bytes += text.utf8
    if bytes[start...].contains(where: {
      $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xE2
    }) {
      // 0xE2 leads U+2028 and U+2029 (E2 80 A8, E2 80 A9), and other characters: escaped looks closer.
      bytes.removeSubrange(start...)
      appendEscaped(text, to: &bytes)
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// The inside of the literal, byte by byte, for text that has something to escape.
  private static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
    let utf8 = Array(text.utf8)
    var index = 0
    while index < utf8.count {
      let byte = utf8[index]
      switch byte {
      case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
      case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
      case 0x00..<0x20: appendUnicodeEscape(UInt32(byte), to: &bytes)
      case 0xE2
      where index + 2 < utf8.count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
        appendUnicodeEscape(utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029, to: &bytes)
        index += 2
      default: bytes.append(byte)
      }
      index += 1
    }
  }

  /// `\uXXXX`, upper-case hex.
  private static func appendUnicodeEscape(_ value: UInt32, to bytes: inout [UInt8]) {
    let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
    bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
    for shift in stride(from: 12, through: 0, by: -4) {
      bytes.append(digits[Int((value >> UInt32(shift)) & 0xF)])
    }
  }
}
