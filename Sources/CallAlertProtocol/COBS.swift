/// Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999).
///
/// COBS removes every 0x00 from a frame so that 0x00 can delimit frames on the wire. It costs one byte
/// per 254 bytes of input plus one, against a worst case of double for SLIP- or HDLC-style escaping.
public enum COBS {
  /// The largest encoded size of `count` raw bytes, without the delimiter.
  @inlinable
  public static func maxEncodedCount(_ count: Int) -> Int {
    count + count / 254 + 1
  }

  /// Appends the COBS encoding of `input` to `output`; appends no delimiter.
  ///
  /// Inlinable, like the other byte-sequence entry points of this module: called from another module, an
  /// unspecialised generic loop over `some Collection<UInt8>` allocates once per byte.
  @inlinable
  public static func encode(_ input: some Collection<UInt8>, into output: inout [UInt8]) {
    output.reserveCapacity(output.count + maxEncodedCount(input.count))
    var codeIndex = output.count
    output.append(0)  // placeholder for the first code byte
    var code: UInt8 = 1
    for byte in input {
      if byte == 0 {
        output[codeIndex] = code
        codeIndex = output.count
        output.append(0)
        code = 1
      } else {
        output.append(byte)
        code += 1
        if code == 0xFF {
          output[codeIndex] = code
          codeIndex = output.count
          output.append(0)
          code = 1
        }
      }
    }
    output[codeIndex] = code
  }

  /// Decodes one COBS block (delimiter already removed) into `output`, replacing its contents.
  ///
  /// - Throws: ``COBSError`` naming the byte offset where the encoding broke.
  @inlinable
  public static func decode(
    _ input: some Collection<UInt8>, into output: inout [UInt8]
  ) throws(COBSError) {
    output.removeAll(keepingCapacity: true)
    var remaining = 0  // data bytes left in the current block
    var pendingZero = false  // a block shorter than 254 data bytes ends in an implicit zero
    var offset = 0
    for byte in input {
      if remaining == 0 {
        if byte == 0 { throw .zeroInBlock(offset: offset) }
        if pendingZero { output.append(0) }
        remaining = Int(byte) - 1
        pendingZero = byte != 0xFF
      } else {
        if byte == 0 { throw .zeroInBlock(offset: offset) }
        output.append(byte)
        remaining -= 1
      }
      offset += 1
    }
    if offset == 0 { throw .empty }
    if remaining != 0 { throw .truncated(offset: offset) }
  }
}

/// Why a COBS block could not be decoded.
public enum COBSError: Error, Equatable, Sendable {
  /// The block was empty.
  case empty
  /// A 0x00 byte stood inside the block at this offset.
  case zeroInBlock(offset: Int)
  /// A code byte promised more data than the block held; the block ended at this offset.
  case truncated(offset: Int)
}
