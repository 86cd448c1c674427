/// One frame of protocol v1, before COBS: an 11-byte header, the payload and a CRC-32C.
///
/// ```
/// offset  size  field
///      0     1  version   framing version, 1 (the protocol version is negotiated in HELLO)
///      1     1  flags     FrameFlags
///      2     2  sequence  little-endian
///      4     1  type      MessageType
///      5     4  nonce     the board's boot nonce (board frames) or the one the host knows (host frames)
///      9     2  length    payload length
///     11     n  payload
///   11+n     4  crc       CRC-32C of bytes 0 ..< 11+n, little-endian
/// ```
public struct Frame: Equatable, Sendable {
  /// The framing version in every v1 header, whichever protocol version HELLO negotiated
  /// (``Hello/protocolVersions``).
  public static let version: UInt8 = 1
  /// Bytes before the payload.
  public static let headerSize = 11
  /// Bytes after the payload.
  public static let trailerSize = 4
  /// The largest payload any v1 implementation may send once the peer has advertised it.
  public static let maxPayload = 1024
  /// The payload every v1 implementation accepts before the handshake has told it more.
  public static let minimumMaxPayload = 128

  /// The header's version field.
  public var version: UInt8
  /// What kind of frame this is: command or event, answer, refusal, notification.
  public var flags: FrameFlags
  /// The sequence number within the sender's sequence space (see ``MessageType/isEvent``).
  public var sequence: UInt16
  /// The message type's code.
  public var type: UInt8
  /// The boot nonce: the board's own in its frames, the one the host believes current in the host's.
  public var nonce: UInt32
  /// The message's payload.
  public var payload: [UInt8]

  /// Creates a frame.
  public init(
    version: UInt8 = Frame.version, flags: FrameFlags = [], sequence: UInt16, type: UInt8,
    nonce: UInt32, payload: [UInt8] = []
  ) {
    self.version = version
    self.flags = flags
    self.sequence = sequence
    self.type = type
    self.nonce = nonce
    self.payload = payload
  }

  /// The frame's bytes before COBS: header, payload and CRC.
  public func rawBytes() -> [UInt8] {
    var writer = ByteWriter(capacity: Frame.headerSize + payload.count + Frame.trailerSize)
    writer.u8(version)
    writer.u8(flags.rawValue)
    writer.u16(sequence)
    writer.u8(type)
    writer.u32(nonce)
    writer.u16(UInt16(truncatingIfNeeded: payload.count))
    writer.append(payload)
    writer.u32(CRC32C.checksum(writer.bytes))
    return writer.bytes
  }

  /// The frame as it goes on the wire: COBS-encoded and terminated by 0x00.
  public func encoded() -> [UInt8] {
    var out: [UInt8] = []
    appendEncoded(to: &out)
    return out
  }

  /// Appends the frame as it goes on the wire (COBS, then 0x00) to `out`.
  public func appendEncoded(to out: inout [UInt8]) {
    COBS.encode(rawBytes(), into: &out)
    out.append(0)
  }

  /// Parses the bytes of one frame after COBS decoding.
  ///
  /// - Parameter maxPayload: the largest payload this receiver accepts.
  /// - Throws: ``FrameError`` for a frame that is short, inconsistent, corrupt or of another version.
  public static func parse(raw: [UInt8], maxPayload: Int = Frame.maxPayload) throws(FrameError) -> Frame {
    guard raw.count >= headerSize + trailerSize else { throw .tooShort(count: raw.count) }
    let declared = Int(littleEndian(raw, at: HeaderOffset.length, bytes: 2))
    let actual = raw.count - headerSize - trailerSize
    // The CRC is checked first: a corrupt length byte is a CRC error, not a length error.
    let crcAt = raw.count - trailerSize
    let stated = littleEndian(raw, at: crcAt, bytes: 4)
    let computed = CRC32C.checksum(raw[0..<crcAt])
    guard stated == computed else { throw .crcMismatch(stated: stated, computed: computed) }
    guard declared == actual else { throw .lengthMismatch(declared: declared, actual: actual) }
    guard actual <= maxPayload else { throw .payloadTooLarge(count: actual, limit: maxPayload) }
    let version = raw[HeaderOffset.version]
    guard version == Frame.version else { throw .unsupportedVersion(version) }
    let flags = FrameFlags(rawValue: raw[HeaderOffset.flags])
    guard flags.isValid else { throw .invalidFlags(flags.rawValue) }
    return Frame(
      version: version, flags: flags,
      sequence: UInt16(truncatingIfNeeded: littleEndian(raw, at: HeaderOffset.sequence, bytes: 2)),
      type: raw[HeaderOffset.type], nonce: littleEndian(raw, at: HeaderOffset.nonce, bytes: 4),
      payload: Array(raw[headerSize..<crcAt]))
  }

  /// Where each header field starts (see the layout in the type's discussion).
  enum HeaderOffset {
    static let version = 0
    static let flags = 1
    static let sequence = 2
    static let type = 4
    static let nonce = 5
    static let length = 9
  }

  /// The little-endian number of `bytes` bytes (at most 4) at `offset` in `raw`.
  private static func littleEndian(_ raw: [UInt8], at offset: Int, bytes: Int) -> UInt32 {
    var value: UInt32 = 0
    for index in 0..<bytes { value |= UInt32(raw[offset + index]) << (8 * index) }
    return value
  }
}

/// The header's flag bits. Bits 3 to 7 are reserved and must be zero.
public struct FrameFlags: OptionSet, Equatable, Sendable {
  /// The flag byte.
  public let rawValue: UInt8
  /// Creates flags from the header byte.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Bit 0: this frame answers the peer's frame with the same sequence and type.
  public static let response = FrameFlags(rawValue: 0x01)
  /// Bit 1: with `response`, the answer is a refusal; the payload is a ``Nak``.
  public static let nak = FrameFlags(rawValue: 0x02)
  /// Bit 2: an unreliable notification: never acknowledged nor retransmitted.
  public static let notify = FrameFlags(rawValue: 0x04)

  /// Whether the combination is one that v1 defines.
  public var isValid: Bool {
    if rawValue & 0xF8 != 0 { return false }
    if contains(.nak) && !contains(.response) { return false }
    if contains(.notify) && contains(.response) { return false }
    return true
  }
}

/// Why a delimited frame was dropped. Receivers count these and resynchronise at the next 0x00.
public enum FrameError: Error, Equatable, Sendable {
  /// The COBS encoding was broken.
  case cobs(COBSError)
  /// Fewer bytes than a header and a CRC.
  case tooShort(count: Int)
  /// The frame was longer than the receiver's limit before it was even decoded (counted at its 0x00).
  case overlong(count: Int)
  /// The CRC in the frame differs from the CRC of its bytes.
  case crcMismatch(stated: UInt32, computed: UInt32)
  /// The header's length differs from the payload's actual length.
  case lengthMismatch(declared: Int, actual: Int)
  /// The payload exceeds what this receiver accepts.
  case payloadTooLarge(count: Int, limit: Int)
  /// The header names a version this receiver does not speak.
  case unsupportedVersion(UInt8)
  /// Reserved flag bits are set, or the flag combination is undefined.
  case invalidFlags(UInt8)
}
