/// CRC-32C (Castagnoli), the check used by every frame and by the stored pattern table.
///
/// Parameters (reveng catalogue "CRC-32/ISCSI"): width 32, polynomial 0x1EDC6F41 (reflected 0x82F63B78),
/// init 0xFFFFFFFF, reflected input and output, final XOR 0xFFFFFFFF, check value 0xE3069283 for the
/// ASCII bytes "123456789". Chosen over CRC-32/ISO-HDLC for its Hamming distance: 6 up to 5 243 bits
/// (frames with payloads up to 644 bytes), and at least 4 for the largest frames.
public struct CRC32C: Sendable {
  /// The running register, before the final XOR.
  private var register: UInt32 = 0xFFFF_FFFF

  /// Creates a checksum with nothing fed into it yet.
  public init() {}

  /// Feeds one byte.
  @inlinable
  public mutating func update(_ byte: UInt8) {
    update(byte: byte)
  }

  /// Feeds a run of bytes. (Inlinable so that callers in other modules get a specialised loop.)
  @inlinable
  public mutating func update(_ bytes: some Sequence<UInt8>) {
    for byte in bytes { update(byte: byte) }
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

  @usableFromInline
  mutating func update(byte: UInt8) {
    // Nibble-wise table: 16 entries (64 bytes of flash) keep the firmware small while costing
    // two lookups per byte instead of eight shifts.
    var crc = register ^ UInt32(byte)
    crc = (crc >> 4) ^ CRC32C.nibbleTable[Int(crc & 0x0F)]
    crc = (crc >> 4) ^ CRC32C.nibbleTable[Int(crc & 0x0F)]
    register = crc
  }

  @usableFromInline
  static let nibbleTable: [UInt32] = [
    0x0000_0000, 0x105E_C76F, 0x20BD_8EDE, 0x30E3_49B1, 0x417B_1DBC, 0x5125_DAD3, 0x61C6_9362, 0x7198_540D,
    0x82F6_3B78, 0x92A8_FC17, 0xA24B_B5A6, 0xB215_72C9, 0xC38D_26C4, 0xD3D3_E1AB, 0xE330_A81A, 0xF36E_6F75,
  ]
}
