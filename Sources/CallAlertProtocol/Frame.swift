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
    let count = Frame.headerSize + payload.count + Frame.trailerSize
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      let out = buffer.baseAddress!
      withHeader { header in (out).initialize(from: header.baseAddress!, count: Frame.headerSize) }
      payload.withUnsafeBufferPointer { body in
        if let source = body.baseAddress { (out + Frame.headerSize).initialize(from: source, count: body.count) }
      }
      var crc = CRC32C()
      crc.update(buffer: UnsafeRawBufferPointer(start: out, count: count - Frame.trailerSize))
      let value = crc.value
      for index in 0..<4 { (out + count - 4 + index).initialize(to: UInt8(truncatingIfNeeded: value >> (8 * index))) }
      initialized = count
    }
  }

  /// The frame as it goes on the wire: COBS-encoded and terminated by 0x00.
  public func encoded() -> [UInt8] {
    let capacity = COBS.maxEncodedCount(Frame.headerSize + payload.count + Frame.trailerSize) + 1
    return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
      initialized = encode(into: buffer.baseAddress!)
    }
  }

  /// Appends the frame as it goes on the wire (COBS, then 0x00) to `out`.
  public func appendEncoded(to out: inout [UInt8]) {
    let start = out.count
    let capacity = COBS.maxEncodedCount(Frame.headerSize + payload.count + Frame.trailerSize) + 1
    out.append(contentsOf: repeatElement(0, count: capacity))
    let written = out.withUnsafeMutableBufferPointer { encode(into: $0.baseAddress! + start) }
    out.removeLast(capacity - written)
  }

  /// Writes the wire form (header, payload and CRC through COBS, then 0x00) to `output`, which has room for it;
  /// the bytes written. The raw frame is never assembled: the CRC runs over the header and the payload where
  /// they are, and the encoder takes the three parts in turn.
  private func encode(into output: UnsafeMutablePointer<UInt8>) -> Int {
    let written = withHeader { header in
      var crc = CRC32C()
      crc.update(buffer: UnsafeRawBufferPointer(header))
      return payload.withUnsafeBufferPointer { body in
        crc.update(buffer: UnsafeRawBufferPointer(body))
        return withUnsafeBytes(of: crc.value.littleEndian) { trailer in
          COBS.encode([header, body, trailer.assumingMemoryBound(to: UInt8.self)], into: output)
        }
      }
    }
    output[written] = 0
    return written + 1
  }

  /// Calls `body` with the 11 header bytes (the payload's length truncated to 16 bits, as on the wire).
  private func withHeader<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    let length = UInt16(truncatingIfNeeded: payload.count)
    let header: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
      version, flags.rawValue, UInt8(truncatingIfNeeded: sequence), UInt8(truncatingIfNeeded: sequence >> 8), type,
      UInt8(truncatingIfNeeded: nonce), UInt8(truncatingIfNeeded: nonce >> 8), UInt8(truncatingIfNeeded: nonce >> 16),
      UInt8(truncatingIfNeeded: nonce >> 24), UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8)
    )
    return withUnsafeBytes(of: header) { body($0.assumingMemoryBound(to: UInt8.self)) }
  }

  /// Parses the bytes of one frame after COBS decoding.
  ///
  /// - Parameter maxPayload: the largest payload this receiver accepts.
  /// - Throws: ``FrameError`` for a frame that is short, inconsistent, corrupt or of another version.
  public static func parse(raw: [UInt8], maxPayload: Int = Frame.maxPayload) throws(FrameError) -> Frame {
    let parsed = raw.withUnsafeBufferPointer { parse(buffer: $0, maxPayload: maxPayload) }
    return try parsed.get()
  }

  /// Parses the bytes of one frame after COBS decoding, held in a buffer.
  static func parse(buffer raw: UnsafeBufferPointer<UInt8>, maxPayload: Int) -> Result<Frame, FrameError> {
    guard raw.count >= headerSize + trailerSize, let base = raw.baseAddress else {
      return .failure(.tooShort(count: raw.count))
    }
    let declared = Int(raw[HeaderOffset.length]) | Int(raw[HeaderOffset.length + 1]) << 8
    let actual = raw.count - headerSize - trailerSize
    // The CRC is checked first: a corrupt length byte is a CRC error, not a length error.
    let crcAt = raw.count - trailerSize
    let stated =
      UInt32(raw[crcAt]) | UInt32(raw[crcAt + 1]) << 8 | UInt32(raw[crcAt + 2]) << 16
      | UInt32(raw[crcAt + 3]) << 24
    var crc = CRC32C()
    crc.update(buffer: UnsafeRawBufferPointer(start: base, count: crcAt))
    let computed = crc.value
    guard stated == computed else { return .failure(.crcMismatch(stated: stated, computed: computed)) }
    guard declared == actual else { return .failure(.lengthMismatch(declared: declared, actual: actual)) }
    guard actual <= maxPayload else { return .failure(.payloadTooLarge(count: actual, limit: maxPayload)) }
    guard raw[HeaderOffset.version] == version else { return .failure(.unsupportedVersion(raw[HeaderOffset.version])) }
    let flags = FrameFlags(rawValue: raw[HeaderOffset.flags])
    guard flags.isValid else { return .failure(.invalidFlags(raw[HeaderOffset.flags])) }
    let sequence = HeaderOffset.sequence
    let nonce = HeaderOffset.nonce
    return .success(
      Frame(
        version: raw[HeaderOffset.version], flags: flags,
        sequence: UInt16(raw[sequence]) | UInt16(raw[sequence + 1]) << 8, type: raw[HeaderOffset.type],
        nonce: UInt32(raw[nonce]) | UInt32(raw[nonce + 1]) << 8 | UInt32(raw[nonce + 2]) << 16
          | UInt32(raw[nonce + 3]) << 24,
        payload: Array(UnsafeBufferPointer(start: base + headerSize, count: actual))))
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
