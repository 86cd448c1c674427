/// Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999).
///
/// COBS removes every 0x00 from a frame so that 0x00 can delimit frames on the wire. It costs one byte
/// per 254 bytes of input plus one, against a worst case of double for SLIP- or HDLC-style escaping.
///
/// Contiguous input (arrays, slices, buffers) is encoded and decoded over buffer pointers, without a branch per
/// byte; other collections go byte by byte. Both give the same bytes.
public enum COBS {
  /// The largest encoded size of `count` raw bytes, without the delimiter.
  @inlinable
  public static func maxEncodedCount(_ count: Int) -> Int {
    count + count / 254 + 1
  }

  /// Bytes a decoding buffer needs beyond the encoded size: the block copy may write up to 16 bytes past the
  /// last decoded byte.
  public static let decodeSlack = 16

  /// Appends the COBS encoding of `input` to `output`; appends no delimiter.
  ///
  /// Inlinable, like the other byte-sequence entry points of this module: called from another module, an
  /// unspecialised generic loop over `some Collection<UInt8>` allocates once per byte.
  @inlinable
  public static func encode(_ input: some Collection<UInt8>, into output: inout [UInt8]) {
    let done: Void? = input.withContiguousStorageIfAvailable { encode(buffer: $0, into: &output) }
    if done == nil { encodeByteByByte(input, into: &output) }
  }

  /// Appends the COBS encoding of a buffer's bytes to `output`; appends no delimiter.
  public static func encode(buffer input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
    let start = output.count
    output.append(contentsOf: repeatElement(0, count: maxEncodedCount(input.count)))
    let written = output.withUnsafeMutableBufferPointer { out in
      encode([input], into: out.baseAddress! + start)
    }
    output.removeLast(output.count - start - written)
  }

  /// Writes the COBS encoding of `parts`, one after another, to `output` (room for ``maxEncodedCount(_:)`` of
  /// them all); the bytes written.
  static func encode(_ parts: [UnsafeBufferPointer<UInt8>], into output: UnsafeMutablePointer<UInt8>) -> Int {
    if let written = encodeByWords(parts, into: output) { return written }
    var writer = COBSWriter(output)
    for part in parts { writer.add(part) }
    return writer.finish()
  }

  /// Encodes `parts` in one forward pass, eight bytes at a time; the bytes written, or nil when a block reaches
  /// 254 data bytes (no zero in 254 bytes), which needs a code byte the output has no room for here: the block
  /// writer encodes those frames.
  ///
  /// Each word is read from the input and stored whole at its place in the output, shifted by one; the zeros in
  /// it are found by a bit trick and each one, now the code byte of the block after it, closes the block before
  /// it by writing that block's length into the previous code byte. No byte of the output is read back, and the
  /// work is per word and per zero, not per byte.
  static func encodeByWords(_ parts: [UnsafeBufferPointer<UInt8>], into output: UnsafeMutablePointer<UInt8>) -> Int? {
    let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    var codeAt = 0  // the open block's code byte
    var written = 1
    for part in parts {
      guard let source = part.baseAddress else { continue }
      let count = part.count
      var read = 0
      while count - read >= 8 {
        let word = UnsafeRawPointer(source + read).loadUnaligned(as: UInt64.self)
        UnsafeMutableRawPointer(output + written).storeBytes(of: word, as: UInt64.self)
        // Exact: the high bit of a byte is set when that byte is zero.
        var zeros = ~((((word & low7) &+ low7) | word) | low7)
        while zeros != 0 {
          let at = written &+ (zeros.trailingZeroBitCount &>> 3)
          guard at &- codeAt <= 254 else { return nil }
          output[codeAt] = UInt8(truncatingIfNeeded: at &- codeAt)
          codeAt = at
          zeros &= zeros &- 1
        }
        written &+= 8
        read &+= 8
        guard written &- codeAt <= 254 else { return nil }
      }
      while read < count {
        let byte = source[read]
        output[written] = byte
        if byte == 0 {
          output[codeAt] = UInt8(truncatingIfNeeded: written &- codeAt)
          codeAt = written
        }
        written &+= 1
        read &+= 1
        guard written &- codeAt <= 254 else { return nil }
      }
    }
    output[codeAt] = UInt8(truncatingIfNeeded: written &- codeAt)
    return written
  }

  /// The byte-by-byte encoder, for collections without contiguous storage.
  @inlinable
  static func encodeByteByByte(_ input: some Collection<UInt8>, into output: inout [UInt8]) {
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
    let result: Result<Void, COBSError>? = input.withContiguousStorageIfAvailable { buffer in
      do throws(COBSError) {
        try decode(buffer: buffer, into: &output)
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    switch result {
    case .success?: return
    case .failure(let error)?: throw error
    case nil: try decodeByteByByte(input, into: &output)
    }
  }

  /// Decodes one COBS block held in a buffer into `output`, replacing its contents.
  ///
  /// - Throws: ``COBSError`` naming the byte offset where the encoding broke.
  public static func decode(buffer input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) throws(COBSError) {
    output.removeAll(keepingCapacity: true)
    output.append(contentsOf: repeatElement(0, count: input.count + decodeSlack))
    let decoded = output.withUnsafeMutableBufferPointer { out in
      COBS.decode(input, into: out.baseAddress!)
    }
    switch decoded {
    case .success(let count): output.removeLast(output.count - count)
    case .failure(let error):
      output.removeAll(keepingCapacity: true)
      throw error
    }
  }

  /// Decodes `input` into `output`, which has room for `input.count + decodeSlack` bytes; the decoded count, or
  /// the first error in the order the byte-by-byte decoder finds them (a zero anywhere comes first).
  ///
  /// - Parameter knownWithoutZeros: the caller found the input between two delimiters, so it holds no zero.
  static func decode(
    _ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>, knownWithoutZeros: Bool = false
  ) -> Result<Int, COBSError> {
    guard let source = input.baseAddress, !input.isEmpty else { return .failure(.empty) }
    let count = input.count
    if !knownWithoutZeros, let zero = firstZero(source, count) { return .failure(.zeroInBlock(offset: zero)) }
    var read = 0
    var written = 0
    while true {
      let code = Int(source[read])
      let length = code - 1
      let blockStart = read + 1
      guard blockStart + length <= count else { return .failure(.truncated(offset: count)) }
      if length <= 16 && blockStart + 16 <= count {
        // Copy 16 bytes whatever the length: no loop whose end the branch predictor must guess.
        UnsafeMutableRawPointer(output + written).copyMemory(from: source + blockStart, byteCount: 16)
      } else {
        (output + written).update(from: source + blockStart, count: length)
      }
      written += length
      read = blockStart + length
      if read == count { return .success(written) }
      if code != 0xFF {
        output[written] = 0
        written += 1
      }
    }
  }

  /// The offset of the first 0x00 in `count` bytes, eight at a time.
  static func firstZero(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int? {
    let raw = UnsafeRawPointer(bytes)
    var offset = 0
    while count - offset >= 8 {
      let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      // The lowest set bit marks the first zero byte exactly (false positives only follow a real zero).
      let zeros = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
      if zeros != 0 { return offset + zeros.trailingZeroBitCount / 8 }
      offset += 8
    }
    while offset < count {
      if bytes[offset] == 0 { return offset }
      offset += 1
    }
    return nil
  }

  /// The byte-by-byte decoder, for collections without contiguous storage.
  @inlinable
  static func decodeByteByByte(_ input: some Collection<UInt8>, into output: inout [UInt8]) throws(COBSError) {
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

/// The COBS encoder over buffer pointers, fed in runs (a frame's header, payload and CRC in turn).
///
/// Every byte is stored where it falls and the open block's code byte is rewritten on every step, so a zero
/// costs a conditional move instead of a branch the predictor would miss on data with many zeros.
struct COBSWriter {
  private let base: UnsafeMutablePointer<UInt8>
  private var written = 1  // bytes written, the first code byte's slot included
  private var codeIndex = 0
  private var code: UInt8 = 1

  /// A writer into `output`, which has room for ``COBS/maxEncodedCount(_:)`` of everything added.
  init(_ output: UnsafeMutablePointer<UInt8>) { base = output }

  /// Encodes a run of bytes.
  mutating func add(_ input: UnsafeBufferPointer<UInt8>) {
    guard let source = input.baseAddress else { return }
    var written = self.written
    var codeIndex = self.codeIndex
    var code = self.code
    for index in 0..<input.count {
      let byte = source[index]
      base[codeIndex] = code  // final when this byte is a zero, rewritten otherwise
      base[written] = byte  // a zero here is the next block's code slot
      // All ones when the byte is zero, else zero: selects by masks, as the optimiser does not reliably turn a
      // conditional into a conditional move here (a branch mispredicted on one byte in five triples the cost).
      let zero = 0 &- Int((UInt32(byte) &- 1) >> 31)
      codeIndex = (written & zero) | (codeIndex & ~zero)
      code = UInt8(truncatingIfNeeded: ((Int(code) &+ 1) & ~zero) | (1 & zero))
      written += 1
      if code == 0xFF {
        base[codeIndex] = 0xFF
        codeIndex = written
        written += 1
        code = 1
      }
    }
    self.written = written
    self.codeIndex = codeIndex
    self.code = code
  }

  /// Writes the last block's code byte; the encoded size.
  mutating func finish() -> Int {
    base[codeIndex] = code
    return written
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
