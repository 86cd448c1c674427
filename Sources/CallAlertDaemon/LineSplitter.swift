#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Splits a byte stream into lines (LF or CRLF), for JSON lines on standard input and on the socket.
///
/// Lines are handed over as the bytes received, never decoded: invalid UTF-8 reaches the request parser as it
/// was sent, so it can be refused there instead of silently becoming U+FFFD. A line longer than `maxLength` is
/// reported as too long and skipped up to its end, never buffered: the splitter holds at most `maxLength` bytes
/// whatever it is fed (see ``bufferedByteCount``).
public struct LineSplitter: Sendable {
  /// What a chunk completed.
  public enum Line: Equatable, Sendable {
    /// A line's bytes, without its terminator, with its 1-based number.
    case line([UInt8], number: Int)
    /// A line that outgrew the limit; its number.
    case tooLong(number: Int)
  }

  /// The longest line accepted, in bytes (a CR before the LF counts).
  public let maxLength: Int
  private var buffer: [UInt8] = []
  private var overflowing = false
  private var number = 0

  /// Creates a splitter.
  public init(maxLength: Int = 256 * 1024) {
    self.maxLength = maxLength
  }

  /// The bytes of the unfinished line held now; never more than ``maxLength``.
  public var bufferedByteCount: Int { buffer.count }

  /// Takes bytes; returns the lines they complete.
  public mutating func feed(_ bytes: some Collection<UInt8>) -> [Line] {
    if let lines = bytes.withContiguousStorageIfAvailable({ feed(contiguous: $0) }) { return lines }
    return Array(bytes).withUnsafeBufferPointer { feed(contiguous: $0) }
  }

  /// The unterminated last line, if any (at end of input).
  public mutating func finish() -> [Line] {
    guard !buffer.isEmpty || overflowing else { return [] }
    return feed([UInt8(ascii: "\n")])
  }

  private mutating func feed(contiguous bytes: UnsafeBufferPointer<UInt8>) -> [Line] {
    var lines: [Line] = []
    var start = bytes.startIndex
    while start < bytes.endIndex {
      guard let newline = Self.firstNewline(in: bytes, from: start) else {
        keep(bytes[start...])
        break
      }
      keep(bytes[start..<newline])
      number += 1
      if overflowing {
        lines.append(.tooLong(number: number))
      } else {
        if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
        lines.append(.line(buffer, number: number))
      }
      buffer.removeAll(keepingCapacity: true)
      overflowing = false
      start = newline + 1
    }
    return lines
  }

  /// The index of the first LF at or after `start` (memchr: a 500 MB line is scanned at memory speed).
  private static func firstNewline(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = bytes.baseAddress, start < bytes.count,
      let found = memchr(base + start, 0x0A, bytes.count - start)
    else { return nil }
    return UnsafeRawPointer(found) - UnsafeRawPointer(base)
  }

  /// Appends part of a line, or drops it (and all of the line to come) once the line is over the limit.
  private mutating func keep(_ part: Slice<UnsafeBufferPointer<UInt8>>) {
    guard !overflowing, !part.isEmpty else { return }
    if buffer.count + part.count > maxLength {
      overflowing = true
      buffer.removeAll(keepingCapacity: true)
    } else {
      buffer.append(contentsOf: part)
    }
  }
}

extension LineSplitter.Line {
  /// The line decoded as UTF-8 (invalid sequences become U+FFFD), for callers that take text; nil for a
  /// line that was too long.
  public var text: String? {
    guard case .line(let bytes, _) = self else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }
}
