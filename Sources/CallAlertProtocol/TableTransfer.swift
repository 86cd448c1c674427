/// TABLE_BEGIN's payload. Layout, 8 bytes: size u32, crc u32: the table's own CRC, i.e. its last 4 bytes,
/// the CRC-32C of bytes 0 ..< size-4. (Not the CRC of all `size` bytes: a CRC over data followed by its
/// own CRC is the same constant for every table, so it would identify nothing.) Starts a transfer,
/// discarding any unfinished one; the active table stays in use until COMMIT succeeds.
public struct TableBegin: Equatable, Sendable {
  /// The table's size.
  public var size: UInt32
  /// The table's CRC: CRC-32C of bytes 0 ..< size-4, which is also the table's last 4 bytes.
  public var crc: UInt32

  /// Creates a begin.
  public init(size: UInt32, crc: UInt32) {
    self.size = size
    self.crc = crc
  }
}

/// Which table TABLE_READ reads.
public enum TableArea: UInt8, Equatable, Sendable {
  /// The table in use.
  case active = 0
  /// The bytes received by the transfer under way.
  case staged = 1
}

/// TABLE_READ's payload. Layout, 7 bytes: area u8 (``TableArea``), offset u32, length u16 (at most the
/// session's max payload). Reading past the end returns the bytes up to the end.
public struct TableRead: Equatable, Sendable {
  /// Which table.
  public var area: TableArea
  /// The first byte.
  public var offset: UInt32
  /// How many bytes.
  public var length: UInt16

  /// Creates a read.
  public init(area: TableArea, offset: UInt32, length: UInt16) {
    self.area = area
    self.offset = offset
    self.length = length
  }
}

/// The `magic` RESET requires, "RST!" little-endian, so that noise cannot reset a board.
public let resetMagic: UInt32 = 0x2154_5352
