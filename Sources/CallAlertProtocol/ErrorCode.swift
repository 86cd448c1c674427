/// The code in a NAK: why a command was refused. Nothing of a refused command has taken effect.
public enum ErrorCode: UInt8, CaseIterable, Sendable {
  /// The type byte names no command. Detail: the type.
  case unknownType = 0x01
  /// The payload does not match the command's layout. Detail: the byte offset in the payload.
  case badPayload = 0x02
  /// HELLO's version range does not meet the board's. Detail: board min | max << 8.
  case unsupportedVersion = 0x03
  /// Any command other than HELLO before a HELLO opened a session since boot. Detail: 0.
  case noSession = 0x04
  /// The frame's nonce is not the board's current boot nonce (the board rebooted). Detail: 0.
  case staleNonce = 0x05
  /// A sequence number ahead of the one expected; the frame was dropped. Detail: the expected sequence.
  case sequenceGap = 0x06
  /// PLAY names a slot with no pattern, or beyond the table. Detail: the slot.
  case badSlot = 0x10
  /// An inline pattern breaks a rule or a capability. Detail: the payload offset of the problem.
  case badPattern = 0x11
  /// PLAY's token is 0 (reserved for "nothing"). Detail: 0.
  case badToken = 0x12
  /// A field is out of range. Detail: the payload offset of the field.
  case badArgument = 0x13
  /// TABLE_DATA, TABLE_COMMIT or a staged TABLE_READ without a transfer. Detail: 0.
  case noTransfer = 0x20
  /// TABLE_BEGIN's size exceeds the board's table capacity. Detail: the capacity.
  case tooLarge = 0x21
  /// TABLE_DATA starts beyond the bytes received so far, or ends beyond the announced size. Detail: the
  /// offset the board expects next (bytes received contiguously from 0).
  case badOffset = 0x22
  /// TABLE_COMMIT before every byte arrived. Detail: the first missing offset.
  case incomplete = 0x23
  /// The staged bytes' CRC differs from the announced one. Detail: the computed CRC.
  case crcMismatch = 0x24
  /// The staged table is not a valid v1 table. Detail: the table offset of the first problem.
  case badTable = 0x25
  /// Programming or erasing the flash failed. Detail: the flash address.
  case flashError = 0x26
}

/// The payload of a NAK: an error code and a 32-bit detail whose meaning the code defines.
public struct Nak: Equatable, Sendable {
  /// The code, kept raw so that a code from a newer board is still reported.
  public var rawCode: UInt8
  /// The code's detail value.
  public var detail: UInt32

  /// Creates a NAK with a known code.
  public init(_ code: ErrorCode, detail: UInt32 = 0) {
    rawCode = code.rawValue
    self.detail = detail
  }

  /// Creates a NAK with a raw code.
  public init(rawCode: UInt8, detail: UInt32) {
    self.rawCode = rawCode
    self.detail = detail
  }

  /// UNSUPPORTED_VERSION, whose detail carries the board's version range (min | max << 8).
  public init(unsupportedVersions min: UInt8, max: UInt8) {
    self.init(.unsupportedVersion, detail: UInt32(min) | UInt32(max) << 8)
  }

  /// Decodes a NAK's payload; nil when the payload is not one.
  public init?(payload: [UInt8]) {
    var reader = ByteReader(payload)
    guard let nak = try? Nak.decode(&reader) else { return nil }
    self = nak
  }

  /// The code, when this implementation knows it.
  public var code: ErrorCode? { ErrorCode(rawValue: rawCode) }

  /// The board's version range an UNSUPPORTED_VERSION NAK carries; nil for any other code.
  public var supportedVersions: (min: UInt8, max: UInt8)? {
    guard code == .unsupportedVersion else { return nil }
    return (UInt8(truncatingIfNeeded: detail), UInt8(truncatingIfNeeded: detail >> 8))
  }

  func encode(into writer: inout ByteWriter) {
    writer.u8(rawCode)
    writer.u32(detail)
  }

  static func decode(_ reader: inout ByteReader) throws(PayloadError) -> Nak {
    let code = try reader.u8("code")
    let detail = try reader.u32("detail")
    try reader.expectEnd("detail")
    return Nak(rawCode: code, detail: detail)
  }
}
