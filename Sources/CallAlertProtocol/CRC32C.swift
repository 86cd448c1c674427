#if !hasFeature(Embedded) && canImport(CCallAlertCRC32C)
  internal import CCallAlertCRC32C
#endif

/// CRC-32C (Castagnoli), the check used by every frame and by the stored pattern table.
///
/// Parameters (reveng catalogue "CRC-32/ISCSI"): width 32, polynomial 0x1EDC6F41 (reflected 0x82F63B78),
/// init 0xFFFFFFFF, reflected input and output, final XOR 0xFFFFFFFF, check value 0xE3069283 for the
/// ASCII bytes "123456789". Chosen over CRC-32/ISO-HDLC for its Hamming distance: 6 up to 5 243 bits
/// (frames with payloads up to 644 bytes), and at least 4 for the largest frames.
///
/// Runs of contiguous bytes take the fastest ``Implementation`` this build and CPU have: on the host, the CPU's
/// CRC-32C instruction (checked at run time) or slice-by-8; in the firmware, the 16-entry nibble table.
public struct CRC32C: Sendable {
  /// The running register, before the final XOR.
  @usableFromInline
  var register: UInt32 = 0xFFFF_FFFF

  /// Creates a checksum with nothing fed into it yet.
  public init() {}

  /// Feeds one byte.
  @inlinable
  public mutating func update(_ byte: UInt8) {
    update(byte: byte)
  }

  /// Feeds a run of bytes: contiguous storage goes through ``update(buffer:)``, anything else byte by byte.
  /// (Inlinable so that callers in other modules get a specialised loop.)
  @inlinable
  public mutating func update(_ bytes: some Sequence<UInt8>) {
    let done: Void? = bytes.withContiguousStorageIfAvailable { update(buffer: UnsafeRawBufferPointer($0)) }
    if done == nil {
      for byte in bytes { update(byte: byte) }
    }
  }

  /// Feeds the bytes of a buffer with the fastest implementation available.
  public mutating func update(buffer: UnsafeRawBufferPointer) {
    register = CRC32C.advance(register, buffer, using: .fastest)
  }

  /// The checksum of everything fed so far.
  public var value: UInt32 { register ^ 0xFFFF_FFFF }

  /// The checksum of `bytes` in one call.
  @inlinable
  public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc = CRC32C()
    crc.update(bytes)
    return crc.value
  }

  /// The checksum of a buffer's bytes computed by one particular implementation (tests run the vectors through
  /// each of ``Implementation/available``).
  public static func checksum(_ buffer: UnsafeRawBufferPointer, using implementation: Implementation) -> UInt32 {
    advance(0xFFFF_FFFF, buffer, using: implementation) ^ 0xFFFF_FFFF
  }

  @usableFromInline
  mutating func update(byte: UInt8) {
    register = CRC32C.nibbleStep(register, byte)
  }

  /// One byte through the nibble table: two lookups instead of eight shifts.
  @inline(__always)
  static func nibbleStep(_ register: UInt32, _ byte: UInt8) -> UInt32 {
    var crc = register ^ UInt32(byte)
    crc = (crc >> 4) ^ CRC32C.nibbleTable[Int(crc & 0x0F)]
    crc = (crc >> 4) ^ CRC32C.nibbleTable[Int(crc & 0x0F)]
    return crc
  }

  /// Nibble-wise table: 16 entries (64 bytes of flash) keep the firmware small.
  static let nibbleTable: [UInt32] = [
    0x0000_0000, 0x105E_C76F, 0x20BD_8EDE, 0x30E3_49B1, 0x417B_1DBC, 0x5125_DAD3, 0x61C6_9362, 0x7198_540D,
    0x82F6_3B78, 0x92A8_FC17, 0xA24B_B5A6, 0xB215_72C9, 0xC38D_26C4, 0xD3D3_E1AB, 0xE330_A81A, 0xF36E_6F75,
  ]

  /// The register after feeding `buffer` into `register` (neither inverted).
  static func advance(
    _ register: UInt32, _ buffer: UnsafeRawBufferPointer, using implementation: Implementation
  )
    -> UInt32
  {
    switch implementation {
    case .nibbleTable:
      var crc = register
      for byte in buffer { crc = nibbleStep(crc, byte) }
      return crc
    #if !hasFeature(Embedded)
      case .sliceBy8:
        return sliceBy8(register, buffer)
      case .instruction:
        #if canImport(CCallAlertCRC32C)
          guard let base = buffer.baseAddress, instructionAvailable else { return sliceBy8(register, buffer) }
          return callalert_crc32c_hardware(register, base, buffer.count)
        #else
          return sliceBy8(register, buffer)
        #endif
    #endif
    }
  }
}

extension CRC32C {
  /// A way of computing the CRC over a run of bytes; every one gives the same result.
  public enum Implementation: Equatable, Sendable {
    /// Two lookups per byte in a 16-entry table: the firmware's, small and slow.
    case nibbleTable
    #if !hasFeature(Embedded)
      /// Eight bytes per step through eight 256-entry tables (8 KiB): the host's portable path.
      case sliceBy8
      /// The CPU's CRC-32C instruction (SSE4.2 `crc32` on x86_64, ARMv8 CRC on aarch64), 8 bytes at a time.
      case instruction
    #endif

    /// What runs of bytes use: the instruction when the CPU has it, slice-by-8 otherwise (the nibble table
    /// in the firmware).
    public static var fastest: Implementation {
      #if hasFeature(Embedded)
        return .nibbleTable
      #else
        return CRC32C.instructionAvailable ? .instruction : .sliceBy8
      #endif
    }

    /// Every implementation this build can run on this CPU.
    public static var available: [Implementation] {
      #if hasFeature(Embedded)
        return [.nibbleTable]
      #else
        return CRC32C.instructionAvailable ? [.nibbleTable, .sliceBy8, .instruction] : [.nibbleTable, .sliceBy8]
      #endif
    }
  }
}

#if !hasFeature(Embedded)
  extension CRC32C {
    /// Whether the CPU has a CRC-32C instruction this build can use (asked once).
    static let instructionAvailable: Bool = {
      #if canImport(CCallAlertCRC32C)
        return callalert_crc32c_hardware_available() != 0
      #else
        return false
      #endif
    }()

    /// The eight tables of slice-by-8, one after another: entry `k * 256 + i` is the register change of byte
    /// `i` followed by `k` zero bytes.
    static let sliceTables: [UInt32] = {
      var tables = [UInt32](repeating: 0, count: 8 * 256)
      for index in 0..<256 {
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        tables[index] = crc
      }
      for slice in 1..<8 {
        for index in 0..<256 {
          let previous = tables[(slice - 1) * 256 + index]
          tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
        }
      }
      return tables
    }()

    static func sliceBy8(_ register: UInt32, _ buffer: UnsafeRawBufferPointer) -> UInt32 {
      guard let base = buffer.baseAddress else { return register }
      return sliceTables.withUnsafeBufferPointer { tablesBuffer in
        let t = tablesBuffer.baseAddress!
        var crc = register
        var offset = 0
        let count = buffer.count
        while count - offset >= 8 {
          let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
          let low = UInt32(truncatingIfNeeded: word) ^ crc
          let high = UInt32(truncatingIfNeeded: word >> 32)
          crc =
            t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
            ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
            ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
            ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
          offset += 8
        }
        while offset < count {
          crc = (crc >> 8) ^ t[Int((crc ^ UInt32(base.load(fromByteOffset: offset, as: UInt8.self))) & 0xFF)]
          offset += 1
        }
        return crc
      }
    }
  }
#endif
