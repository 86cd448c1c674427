/// The pattern table a board stores and plays by slot number: the exact bytes of a table transfer.
///
/// Layout (all little-endian):
/// ```
/// offset  size  field
///      0     4  magic        "CAPT" (0x43 0x41 0x50 0x54)
///      4     1  format       1
///      5     1  slot_count   number of directory entries, 1 to 64
///      6     2  reserved     0
///      8     4  version      chosen by the author; reported in INFO
///     12     4  size         total size in bytes, including the CRC
///     16  24*n  directory    per slot: offset u32, length u16, reserved u16 (0), name[16] (ASCII, NUL-padded)
///      …     …  patterns     each a Pattern encoding, at its entry's offset
///   size-4   4  crc          CRC-32C of bytes 0 ..< size-4
/// ```
/// An entry with length 0 is an empty slot (its offset is 0). Patterns lie after the directory, inside
/// the table, and do not overlap.
public struct PatternTable: Equatable, Sendable {
  /// "CAPT", read as a little-endian u32.
  public static let magic: UInt32 = 0x5450_4143
  /// The table format this codec writes.
  public static let format: UInt8 = 1
  /// The header's size.
  public static let headerSize = 16
  /// One directory entry's size.
  public static let entrySize = 24
  /// The longest slot name.
  public static let nameSize = 16
  /// The most slots a table may have.
  public static let maxSlots = 64

  /// One slot: a name and a pattern.
  public struct Slot: Equatable, Sendable {
    /// The name, ASCII without NULs, at most 16 bytes.
    public var name: [UInt8]
    /// The pattern.
    public var pattern: Pattern

    /// Creates a slot.
    public init(name: [UInt8], pattern: Pattern) {
      self.name = name
      self.pattern = pattern
    }
  }

  /// The table's version as its author numbered it.
  public var version: UInt32
  /// The slots, by number; nil marks an empty slot.
  public var slots: [Slot?]

  /// Creates a table.
  public init(version: UInt32, slots: [Slot?]) {
    self.version = version
    self.slots = slots
  }

  /// The encoded bytes: deterministic for a given table.
  public func encoded() -> [UInt8] {
    let directoryEnd = PatternTable.headerSize + slots.count * PatternTable.entrySize
    var size = directoryEnd + 4
    for slot in slots { size += slot?.pattern.encodedSize ?? 0 }
    var writer = ByteWriter(capacity: size)
    writer.u32(PatternTable.magic)
    writer.u8(PatternTable.format)
    writer.u8(UInt8(truncatingIfNeeded: slots.count))
    writer.u16(0)
    writer.u32(version)
    writer.u32(UInt32(truncatingIfNeeded: size))
    var offset = directoryEnd
    for slot in slots {
      guard let slot else {
        writer.u32(0)
        writer.u16(0)
        writer.u16(0)
        writer.fill(0, count: PatternTable.nameSize)
        continue
      }
      writer.u32(UInt32(truncatingIfNeeded: offset))
      writer.u16(UInt16(truncatingIfNeeded: slot.pattern.encodedSize))
      writer.u16(0)
      let name = slot.name.prefix(PatternTable.nameSize)
      writer.append(name)
      writer.fill(0, count: PatternTable.nameSize - name.count)
      offset += slot.pattern.encodedSize
    }
    for slot in slots { slot?.pattern.encode(into: &writer) }
    writer.u32(CRC32C.checksum(writer.bytes))
    return writer.bytes
  }

  /// Parses and checks a whole table; the error's offset is the table offset of the first problem.
  public static func decode(_ bytes: [UInt8]) throws(PayloadError) -> PatternTable {
    let summary = try PatternTableHeader.read(bytes)
    var slots: [Slot?] = []
    slots.reserveCapacity(Int(summary.slotCount))
    let directoryEnd = headerSize + Int(summary.slotCount) * entrySize
    var nextFree = directoryEnd  // patterns are laid out in slot order without overlap
    for index in 0..<Int(summary.slotCount) {
      let entry = try summary.entry(index, in: bytes)
      guard entry.length > 0 else {
        slots.append(nil)
        continue
      }
      guard entry.offset >= nextFree, entry.offset + entry.length <= bytes.count - 4 else {
        throw PayloadError(.invalidValue, field: "entry.offset", offset: entry.at)
      }
      var reader = ByteReader(Array(bytes[0..<entry.offset + entry.length]), offset: entry.offset)
      let pattern = try Pattern.decode(&reader)
      try reader.expectEnd("entry.length")
      nextFree = entry.offset + entry.length
      slots.append(Slot(name: entry.name, pattern: pattern))
    }
    return PatternTable(version: summary.version, slots: slots)
  }
}

/// The fixed part of a stored table, enough for a board to report its version and CRC and to find a
/// slot without decoding every pattern.
public struct PatternTableHeader: Equatable, Sendable {
  /// The table's version.
  public var version: UInt32
  /// The number of directory entries.
  public var slotCount: UInt8
  /// The total size including the CRC.
  public var size: UInt32
  /// The stored CRC-32C.
  public var crc: UInt32

  /// Creates a header from its fields (a board that checks a stored table piece by piece builds it).
  public init(version: UInt32, slotCount: UInt8, size: UInt32, crc: UInt32) {
    self.version = version
    self.slotCount = slotCount
    self.size = size
    self.crc = crc
  }

  /// One directory entry, located in the table.
  public struct Entry: Equatable, Sendable {
    /// The table offset of the entry itself (for error reports).
    public var at: Int
    /// The pattern's table offset.
    public var offset: Int
    /// The pattern's length; 0 for an empty slot.
    public var length: Int
    /// The slot's name without padding.
    public var name: [UInt8]
  }

  /// Reads and checks the header, the size and the CRC of a table.
  public static func read(_ bytes: [UInt8]) throws(PayloadError) -> PatternTableHeader {
    var reader = ByteReader(bytes)
    guard try reader.u32("magic") == PatternTable.magic else { throw reader.invalid("magic", width: 4) }
    guard try reader.u8("format") == PatternTable.format else { throw reader.invalid("format", width: 1) }
    let slotCount = try reader.u8("slot_count")
    guard slotCount > 0, Int(slotCount) <= PatternTable.maxSlots else {
      throw reader.invalid("slot_count", width: 1)
    }
    guard try reader.u16("reserved") == 0 else { throw reader.invalid("reserved", width: 2) }
    let version = try reader.u32("version")
    let size = try reader.u32("size")
    let minimum = PatternTable.headerSize + Int(slotCount) * PatternTable.entrySize + 4
    guard Int(size) == bytes.count, bytes.count >= minimum else { throw reader.invalid("size", width: 4) }
    var crcReader = ByteReader(bytes, offset: bytes.count - 4)
    let crc = try crcReader.u32("crc")
    guard CRC32C.checksum(bytes[0..<bytes.count - 4]) == crc else {
      throw PayloadError(.invalidValue, field: "crc", offset: bytes.count - 4)
    }
    return PatternTableHeader(version: version, slotCount: slotCount, size: size, crc: crc)
  }

  /// Reads directory entry `index` of `bytes`, whose header this is.
  public func entry(_ index: Int, in bytes: [UInt8]) throws(PayloadError) -> Entry {
    let at = PatternTable.headerSize + index * PatternTable.entrySize
    var reader = ByteReader(bytes, offset: at)
    let offset = Int(try reader.u32("entry.offset"))
    let length = Int(try reader.u16("entry.length"))
    guard try reader.u16("entry.reserved") == 0 else { throw reader.invalid("entry.reserved", width: 2) }
    var name = try reader.bytes(PatternTable.nameSize, "entry.name")
    while let last = name.last, last == 0 { name.removeLast() }
    for byte in name where byte < 0x20 || byte > 0x7E {
      throw PayloadError(.invalidValue, field: "entry.name", offset: at + 8)
    }
    if length == 0 && offset != 0 {
      throw PayloadError(.invalidValue, field: "entry.offset", offset: at)
    }
    return Entry(at: at, offset: offset, length: length, name: name)
  }
}
