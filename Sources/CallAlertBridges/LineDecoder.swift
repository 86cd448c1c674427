/// Splits a byte stream into lines (ended by `\n`, a `\r` before it dropped), each with the stream offset of
/// its first byte. A single-step decoder: bytes are appended, whole lines taken out; a partial line waits.
///
/// A line longer than ``maximumLength`` is not kept: it is reported once as ``Line/tooLong`` and its bytes are
/// dropped up to the next newline, so one runaway line costs bounded memory and the stream goes on.
public struct LineDecoder: Sendable {
  /// One line out of the stream.
  public enum Line: Equatable, Sendable {
    /// A whole line (without its `\r\n`), starting at `offset`.
    case line([UInt8], offset: Int)
    /// A line that grew past the limit, starting at `offset`; its bytes are skipped.
    case tooLong(offset: Int)
  }

  /// The longest line kept, in bytes.
  public let maximumLength: Int
  private var pending: [UInt8] = []
  private var pendingOffset = 0
  private var skipping = false
  private var consumed = 0

  /// Creates a decoder for lines up to `maximumLength` bytes.
  public init(maximumLength: Int = 4_096) {
    self.maximumLength = maximumLength
  }

  /// How many bytes the stream has delivered so far.
  public var offset: Int { consumed }

  /// Adds received bytes and returns the lines they completed.
  public mutating func feed(_ bytes: some Collection<UInt8>) -> [Line] {
    var lines: [Line] = []
    let contiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
      feed(buffer: buffer, into: &lines)
    }
    if contiguous == nil {
      Array(bytes).withUnsafeBufferPointer { feed(buffer: $0, into: &lines) }
    }
    return lines
  }

  /// Cuts a buffer at its newlines, copying each piece at once: no per-byte work beyond finding `\n`.
  private mutating func feed(buffer: UnsafeBufferPointer<UInt8>, into lines: inout [Line]) {
    var start = 0
    while start < buffer.count {
      let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n"))
      let piece = UnsafeBufferPointer(rebasing: buffer[start..<(newline ?? buffer.count)])
      if !skipping, !piece.isEmpty {
        if pending.isEmpty { pendingOffset = consumed + start }
        if pending.count + piece.count > maximumLength {
          lines.append(.tooLong(offset: pendingOffset))
          pending.removeAll(keepingCapacity: true)
          skipping = true
        } else {
          pending.append(contentsOf: piece)
        }
      }
      guard let newline else { break }
      if skipping {
        skipping = false
      } else {
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        lines.append(.line(pending, offset: pendingOffset))
      }
      pending.removeAll(keepingCapacity: true)
      pendingOffset = consumed + newline + 1
      start = newline + 1
    }
    consumed += buffer.count
  }
}
