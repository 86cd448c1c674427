/// One AMI message: `Key: Value` lines ended by a blank line, such as an event, a response or an action.
public struct AMIFrame: Equatable, Sendable {
  /// The fields in the order they came; keys may repeat (`Variable:`), ``subscript(_:)`` gives the first.
  public var fields: [(key: String, value: String)]

  /// Creates a frame.
  public init(_ fields: [(key: String, value: String)]) { self.fields = fields }

  /// The first value of `key`, compared without regard to case (Asterisk itself ignores case in keys).
  public subscript(_ key: String) -> String? {
    fields.first { Self.equalIgnoringASCIICase($0.key, key) }?.value
  }

  /// Keys are printable ASCII (the decoder checks), so comparing bytes with ASCII case folded is Asterisk's own
  /// rule, and it allocates nothing: a tracker looks up a dozen keys in frames of up to 256 fields.
  static func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
    var left = lhs.utf8.makeIterator()
    var right = rhs.utf8.makeIterator()
    while true {
      switch (left.next(), right.next()) {
      case (nil, nil): return true
      case (let a?, let b?):
        if a != b, a | 0x20 != b | 0x20 || !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20) {
          return false
        }
      default: return false
      }
    }
  }

  /// The frame as it goes on the wire, each line ended by `\r\n` and the frame by a blank line.
  public var encoded: [UInt8] {
    var text = ""
    for (key, value) in fields { text += "\(key): \(value)\r\n" }
    return Array((text + "\r\n").utf8)
  }

  /// Frames are equal when their fields are, in order.
  public static func == (lhs: AMIFrame, rhs: AMIFrame) -> Bool {
    lhs.fields.count == rhs.fields.count
      && zip(lhs.fields, rhs.fields).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }

  /// Reads one `Key: Value` line; the value's leading spaces are dropped.
  static func field(_ bytes: [UInt8]) throws(BridgeParseError) -> (key: String, value: String) {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw BridgeParseError(column: 1, "the line is not valid UTF-8")
    }
    guard let colon = text.firstIndex(of: ":") else {
      throw BridgeParseError(column: 1, "'\(excerpt(text))' is not a 'Key: Value' line")
    }
    let key = String(text[..<colon])
    guard !key.isEmpty, key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
      throw BridgeParseError(column: 1, "'\(excerpt(key))' is not a key (printable ASCII, no spaces)")
    }
    let value = text[text.index(after: colon)...].drop { $0 == " " }
    return (key, String(value))
  }
}

/// Splits an AMI byte stream into frames: first the greeting line (`Asterisk Call Manager/5.0.1`), then
/// `Key: Value` frames ended by a blank line. A single-step decoder: bytes in, whole frames out; a partial
/// frame waits.
///
/// A frame with a line that is not `Key: Value`, a line over 4 KiB, or more than ``maximumFields`` lines is
/// reported as ``Item/malformed(offset:error:)`` (once, with the offset of the frame's first byte) and skipped
/// up to its blank line; the stream goes on.
public struct AMIFrameDecoder: Sendable {
  /// What the stream held.
  public enum Item: Equatable, Sendable {
    /// The greeting line that opens every AMI session.
    case greeting(String)
    /// A frame, with the offset of its first byte.
    case frame(AMIFrame, offset: Int)
    /// A frame that could not be read, from `offset`.
    case malformed(offset: Int, error: BridgeParseError)
  }

  /// The most lines a frame may have.
  public static let maximumFields = 256
  private var lines = LineDecoder(maximumLength: 4_096)
  private var expectsGreeting = true
  private var fields: [(key: String, value: String)] = []
  private var frameOffset: Int?
  private var frameError: BridgeParseError?

  /// Creates a decoder for a new connection (the greeting comes first).
  public init() {}

  /// Adds received bytes and returns what they completed.
  public mutating func feed(_ bytes: some Collection<UInt8>) -> [Item] {
    var items: [Item] = []
    for line in lines.feed(bytes) {
      switch line {
      case .tooLong(let offset):
        if frameOffset == nil { frameOffset = offset }
        if frameError == nil { frameError = BridgeParseError(column: 1, "a line is longer than 4 KiB") }
      case .line(let bytes, let offset):
        if expectsGreeting {
          expectsGreeting = false
          if !bytes.isEmpty, !bytes.contains(UInt8(ascii: ":")) || bytes.starts(with: Array("Asterisk".utf8)) {
            items.append(.greeting(String(decoding: bytes, as: UTF8.self)))
            continue
          }
        }
        if bytes.isEmpty {
          guard let start = frameOffset else { continue }  // blank lines between frames
          if let error = frameError {
            items.append(.malformed(offset: start, error: error))
          } else {
            items.append(.frame(AMIFrame(fields), offset: start))
          }
          fields.removeAll(keepingCapacity: true)
          frameOffset = nil
          frameError = nil
          continue
        }
        if frameOffset == nil { frameOffset = offset }
        guard frameError == nil else { continue }
        guard fields.count < Self.maximumFields else {
          frameError = BridgeParseError(column: 1, "a frame has more than \(Self.maximumFields) lines")
          fields.removeAll()
          continue
        }
        do {
          fields.append(try AMIFrame.field(bytes))
        } catch {
          frameError = BridgeParseError(column: error.column, "line \(fields.count + 1): \(error.message)")
          fields.removeAll()
        }
      }
    }
    return items
  }
}
