/// Splits a byte stream into lines (LF or CRLF), for JSON lines on standard input and on the socket.
/// A line longer than `maxLength` is reported as too long and skipped up to its end, never buffered.
public struct LineSplitter: Sendable {
  /// What a chunk completed.
  public enum Line: Equatable, Sendable {
    /// A line, without its terminator, with its 1-based number.
    case line(String, number: Int)
    /// A line that outgrew the limit; its number.
    case tooLong(number: Int)
  }

  /// The longest line accepted, in bytes.
  public let maxLength: Int
  private var buffer: [UInt8] = []
  private var overflowing = false
  private var number = 0

  /// Creates a splitter.
  public init(maxLength: Int = 256 * 1024) {
    self.maxLength = maxLength
  }

  /// Takes bytes; returns the lines they complete.
  public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Line] {
    var lines: [Line] = []
    for byte in bytes {
      if byte == UInt8(ascii: "\n") {
        number += 1
        if overflowing {
          lines.append(.tooLong(number: number))
        } else {
          if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
          lines.append(.line(String(decoding: buffer, as: UTF8.self), number: number))
        }
        buffer.removeAll(keepingCapacity: true)
        overflowing = false
      } else if !overflowing {
        if buffer.count == maxLength {
          overflowing = true
          buffer.removeAll(keepingCapacity: true)
        } else {
          buffer.append(byte)
        }
      }
    }
    return lines
  }

  /// The unterminated last line, if any (at end of input).
  public mutating func finish() -> [Line] {
    guard !buffer.isEmpty || overflowing else { return [] }
    return feed([UInt8(ascii: "\n")])
  }
}
