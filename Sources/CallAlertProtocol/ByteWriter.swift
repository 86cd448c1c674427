/// Appends little-endian fields to a byte array: every multi-byte field of the protocol is little-endian.
public struct ByteWriter: Sendable {
  /// The bytes written so far.
  public private(set) var bytes: [UInt8]

  /// Creates a writer, reserving room for `capacity` bytes.
  public init(capacity: Int = 0) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  /// Appends one byte.
  public mutating func u8(_ value: UInt8) { bytes.append(value) }

  /// Appends a 16-bit value, low byte first.
  public mutating func u16(_ value: UInt16) {
    bytes.append(UInt8(truncatingIfNeeded: value))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
  }

  /// Appends a 32-bit value, low byte first.
  public mutating func u32(_ value: UInt32) {
    bytes.append(UInt8(truncatingIfNeeded: value))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    bytes.append(UInt8(truncatingIfNeeded: value >> 24))
  }

  /// Appends raw bytes.
  public mutating func append(_ other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }

  /// Appends `count` copies of `value` (padding).
  public mutating func fill(_ value: UInt8, count: Int) {
    bytes.append(contentsOf: repeatElement(value, count: count))
  }
}

/// Reads little-endian fields from a payload, throwing a ``PayloadError`` that names the field and offset.
public struct ByteReader: Sendable {
  /// The bytes being read.
  public let bytes: [UInt8]
  /// Where the next field starts.
  public private(set) var offset: Int

  /// Creates a reader over `bytes`, starting at `offset`.
  public init(_ bytes: [UInt8], offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  /// How many bytes remain unread.
  public var remaining: Int { bytes.count - offset }

  private mutating func take(_ count: Int, _ field: StaticString) throws(PayloadError) -> Int {
    guard remaining >= count else {
      throw PayloadError(.truncated, field: field, offset: offset)
    }
    defer { offset += count }
    return offset
  }

  /// Reads one byte for `field`.
  public mutating func u8(_ field: StaticString) throws(PayloadError) -> UInt8 {
    bytes[try take(1, field)]
  }

  /// Reads a little-endian 16-bit value for `field`.
  public mutating func u16(_ field: StaticString) throws(PayloadError) -> UInt16 {
    let at = try take(2, field)
    return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
  }

  /// Reads a little-endian 32-bit value for `field`.
  public mutating func u32(_ field: StaticString) throws(PayloadError) -> UInt32 {
    let at = try take(4, field)
    return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
      | UInt32(bytes[at + 3]) << 24
  }

  /// Reads `count` raw bytes for `field`.
  public mutating func bytes(_ count: Int, _ field: StaticString) throws(PayloadError) -> [UInt8] {
    let at = try take(count, field)
    return Array(bytes[at..<at + count])
  }

  /// Reads everything that is left.
  public mutating func rest() -> [UInt8] {
    defer { offset = bytes.count }
    return Array(bytes[offset...])
  }

  /// Fails unless every byte was read: trailing bytes are an error, not something to ignore.
  public func expectEnd(_ field: StaticString) throws(PayloadError) {
    guard remaining == 0 else { throw PayloadError(.trailingBytes, field: field, offset: offset) }
  }

  /// Fails with `kind` for `field` at the offset where that field started (`offset - width`).
  public func invalid(_ field: StaticString, width: Int) -> PayloadError {
    PayloadError(.invalidValue, field: field, offset: offset - width)
  }
}

/// A payload that does not match its message's layout, with the field and the byte offset in the payload.
public struct PayloadError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong with the field.
  public enum Kind: UInt8, Equatable, Sendable {
    /// The payload ended inside the field.
    case truncated
    /// The field holds a value the protocol does not allow.
    case invalidValue
    /// Bytes remain after the last field.
    case trailingBytes
  }

  /// What is wrong.
  public let kind: Kind
  /// The field's name as the spec writes it.
  public let field: StaticString
  /// The field's byte offset within the payload.
  public let offset: Int

  /// Creates an error for `field` at `offset`.
  public init(_ kind: Kind, field: StaticString, offset: Int) {
    self.kind = kind
    self.field = field
    self.offset = offset
  }

  /// A human-readable account, e.g. "payload truncated in field cap_ms at byte 4".
  public var description: String {
    let what: String
    switch kind {
    case .truncated: what = "payload truncated in field"
    case .invalidValue: what = "invalid value in field"
    case .trailingBytes: what = "unexpected bytes after field"
    }
    return "\(what) \(field.description) at byte \(offset)"
  }

  /// Compares every field.
  public static func == (lhs: PayloadError, rhs: PayloadError) -> Bool {
    lhs.kind == rhs.kind && lhs.offset == rhs.offset
      && lhs.field.description == rhs.field.description
  }
}
