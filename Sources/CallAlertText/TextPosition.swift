/// Line and column of a byte offset in UTF-8 text, as editors count them: lines from 1 (a `\n` ends one),
/// columns from 1 in Unicode scalars.
package enum TextPosition {
  /// The line and column of the byte at `offset` (the end of `bytes` when past it).
  package static func of(_ offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    var line = 1
    var column = 1
    for byte in bytes[..<min(max(offset, 0), bytes.count)] {
      if byte == 0x0A {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        // A continuation byte belongs to the scalar before it.
        column += 1
      }
    }
    return (line, column)
  }
}
