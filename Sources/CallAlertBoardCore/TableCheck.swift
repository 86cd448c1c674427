import CallAlertProtocol

/// Checks a table stored in flash a piece at a time, with the same rules, the same order and the same error
/// offsets as ``TableStore/validate(_:limits:)`` (``PatternTableHeader/read(_:)``, ``PatternTable/decode(_:)``,
/// then this board's limits), but never holding more than one pattern in RAM.
///
/// Why: a micro:bit v1 has 16 KiB of RAM in all; reading a 31 KiB table back whole to verify it is
/// impossible there. Memory used: one ``chunkSize`` read for the CRC, one directory entry, one pattern.
struct TableCheck<Flash: BoardFlash> {
  /// The bytes read at a time while computing the CRC.
  static var chunkSize: Int { 256 }

  let flash: Flash
  /// The table's first byte in the flash.
  let base: Int
  /// The table's size, as announced (TABLE_BEGIN) or recorded (commit record).
  let size: Int

  /// CRC-32C of the table's bytes 0 ..< size-4.
  func crc() -> UInt32 {
    var crc = CRC32C()
    var at = 0
    while at < size - 4 {
      let count = min(Self.chunkSize, size - 4 - at)
      crc.update(flash.read(address: base + at, count: count))
      at += count
    }
    return crc.value
  }

  /// The table's header once every rule and limit holds; throws the first problem with its table offset.
  func validate(limits: PatternLimits) throws(PayloadError) -> PatternTableHeader {
    let header = try readHeader()
    guard header.slotCount <= limits.patternSlots else {
      throw PayloadError(.invalidValue, field: "slot_count", offset: 5)
    }
    // First the codec's rules for every entry (as PatternTable.decode), then the limits (as validate).
    let directoryEnd = PatternTable.headerSize + Int(header.slotCount) * PatternTable.entrySize
    var nextFree = directoryEnd
    for index in 0..<Int(header.slotCount) {
      let entry = try entry(index, of: header)
      guard entry.length > 0 else { continue }
      guard entry.offset >= nextFree, entry.offset + entry.length <= size - 4 else {
        throw PayloadError(.invalidValue, field: "entry.offset", offset: entry.at)
      }
      _ = try pattern(at: entry)
      nextFree = entry.offset + entry.length
    }
    for index in 0..<Int(header.slotCount) {
      let entry = try entry(index, of: header)
      guard entry.length > 0, let problem = limits.problem(in: try pattern(at: entry)) else { continue }
      throw PayloadError(.invalidValue, field: "pattern", offset: entry.offset + problem)
    }
    return header
  }

  /// ``PatternTableHeader/read(_:)`` on the flash: the fixed header, the size and the trailing CRC.
  func readHeader() throws(PayloadError) -> PatternTableHeader {
    var reader = ByteReader(flash.read(address: base, count: min(size, PatternTable.headerSize)))
    guard try reader.u32("magic") == PatternTable.magic else { throw reader.invalid("magic", width: 4) }
    guard try reader.u8("format") == PatternTable.format else { throw reader.invalid("format", width: 1) }
    let slotCount = try reader.u8("slot_count")
    guard slotCount > 0, Int(slotCount) <= PatternTable.maxSlots else {
      throw reader.invalid("slot_count", width: 1)
    }
    guard try reader.u16("reserved") == 0 else { throw reader.invalid("reserved", width: 2) }
    let version = try reader.u32("version")
    let announced = try reader.u32("size")
    let minimum = PatternTable.headerSize + Int(slotCount) * PatternTable.entrySize + 4
    guard Int(announced) == size, size >= minimum else { throw reader.invalid("size", width: 4) }
    var crcReader = ByteReader(flash.read(address: base + size - 4, count: 4))
    let stored = try crcReader.u32("crc")
    guard crc() == stored else { throw PayloadError(.invalidValue, field: "crc", offset: size - 4) }
    return PatternTableHeader(version: version, slotCount: slotCount, size: announced, crc: stored)
  }

  /// Directory entry `index`, read alone (offsets in errors are the table's).
  func entry(_ index: Int, of header: PatternTableHeader) throws(PayloadError) -> PatternTableHeader.Entry {
    let at = PatternTable.headerSize + index * PatternTable.entrySize
    // The entry's bytes placed at their table offset: `entry(_:in:)` reads at `at`. Only the entry's own
    // bytes are real; the prefix is never read. (A zero prefix of at most 16 + 64 x 24 bytes.)
    var bytes = [UInt8](repeating: 0, count: at)
    bytes.append(contentsOf: flash.read(address: base + at, count: min(PatternTable.entrySize, max(0, size - at))))
    return try header.entry(index, in: bytes)
  }

  /// The pattern `entry` points at, decoded alone (offsets in errors are the table's).
  func pattern(at entry: PatternTableHeader.Entry) throws(PayloadError) -> Pattern {
    var reader = ByteReader(flash.read(address: base + entry.offset, count: entry.length))
    do throws(PayloadError) {
      let pattern = try Pattern.decode(&reader)
      try reader.expectEnd("entry.length")
      return pattern
    } catch {
      throw PayloadError(error.kind, field: error.field, offset: entry.offset + error.offset)
    }
  }
}
