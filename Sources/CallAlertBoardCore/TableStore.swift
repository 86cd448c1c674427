import CallAlertProtocol

/// The pattern table in flash, in two slots (A/B) so that a new table replaces the old one atomically.
///
/// The flash region is split into two equal halves. Each half (a slot) starts with a page holding its
/// commit record, followed by the table's bytes; the table capacity is therefore half the pages minus
/// the record page. A transfer always writes the slot that is *not* active:
/// 1. TABLE_BEGIN erases the record page first (the slot is invalid from that moment), then the data pages;
/// 2. TABLE_DATA programs each new byte once;
/// 3. TABLE_COMMIT reads everything back, checks the table's CRC-32C (over bytes 0 ..< size-4, as
///    TABLE_BEGIN announced it) and every rule and limit, and only then programs the commit record: the
///    single write that makes the new table the active one.
///
/// Power lost at any point before the record is whole leaves the old slot untouched and the new one
/// without a valid record, so the board boots the old table; power lost after leaves a whole record,
/// and the board boots the new one. At boot a slot is valid when its record has the right magic and
/// self-CRC, the CRC-32C of the table's bytes 0 ..< size-4 is the record's CRC, and the table passes
/// every check a commit makes; the valid slot with the highest generation wins.
///
/// Memory: nothing grows with the table's size. TABLE_DATA programs each chunk as it comes (only a
/// programming-unit tail stays in RAM); commit and boot verify the table from flash a piece at a time
/// (``TableCheck``: a 256-byte read for the CRC, one directory entry, one pattern).
public struct TableStore<Flash: BoardFlash> {
  /// The table in use.
  public struct ActiveTable: Equatable, Sendable {
    /// Which slot holds it (0 or 1).
    public var slot: Int
    /// Its commit record's generation.
    public var generation: UInt32
    /// Its header.
    public var header: PatternTableHeader

    /// The summary INFO and TABLE_COMMIT report: version, the table's trailing CRC, size.
    public var summary: TableSummary { TableSummary(version: header.version, crc: header.crc, size: header.size) }
  }

  /// A transfer under way.
  public struct Transfer: Equatable, Sendable {
    /// The slot being written.
    public var slot: Int
    /// The announced size.
    public var size: UInt32
    /// The announced CRC: the table's own, CRC-32C of bytes 0 ..< size-4.
    public var crc: UInt32
    /// Bytes received contiguously from offset 0.
    public var received: UInt32
  }

  /// A refused table operation: the NAK to answer with and, when the flash failed, its address (the
  /// core raises FAULT `flash` for it).
  public struct Failure: Error, Equatable, Sendable {
    /// The refusal.
    public var nak: Nak
    /// The flash address that failed to erase or program, if that was the cause.
    public var flashAddress: Int?

    /// Creates a failure.
    public init(_ code: ErrorCode, detail: UInt32 = 0, flashAddress: Int? = nil) {
      nak = Nak(code, detail: detail)
      self.flashAddress = flashAddress
    }
  }

  /// The smallest table: header, one directory entry and the CRC.
  public static var minimumTableSize: Int { PatternTable.headerSize + PatternTable.entrySize + 4 }

  /// The flash.
  public private(set) var flash: Flash
  /// The limits every stored pattern respects.
  public let limits: PatternLimits
  /// Pages per slot.
  public let slotPages: Int
  /// The largest table, in bytes.
  public let capacity: Int
  /// The table in use, if any.
  public private(set) var active: ActiveTable?
  /// What boot found: the newest table, an older one because the newest was damaged, or none.
  public private(set) var bootState: BootTableState = .none
  /// The transfer under way, if any.
  public private(set) var transfer: Transfer?

  private var tail: [UInt8] = []  // received bytes not yet programmed: less than one programming unit
  private var newestGeneration: UInt32 = 0  // the highest generation of any whole record seen

  /// Mounts the flash: reads both commit records and activates the newest valid slot.
  public init(flash: Flash, limits: PatternLimits) {
    self.flash = flash
    self.limits = limits
    slotPages = max(0, flash.pageCount / 2)
    capacity = slotPages >= 2 ? (slotPages - 1) * flash.pageSize : 0
    guard capacity > 0 else { return }
    var best: ActiveTable? = nil
    for slot in 0..<2 {
      guard
        let record = TableCommitRecord.decode(flash.read(address: recordAddress(slot), count: TableCommitRecord.size))
      else { continue }
      newestGeneration = max(newestGeneration, record.generation)
      guard let header = verify(slot: slot, record: record) else { continue }
      if best == nil || record.generation > best!.generation {
        best = ActiveTable(slot: slot, generation: record.generation, header: header)
      }
    }
    active = best
    if let best { bootState = best.generation == newestGeneration ? .ok : .fellBack }
  }

  /// The active table's summary, ``TableSummary/none`` without one.
  public var summary: TableSummary { active?.summary ?? .none }

  /// TABLE_BEGIN: discards any transfer, erases the inactive slot (commit record first) and starts staging.
  public mutating func begin(size: UInt32, crc: UInt32) throws(Failure) {
    guard Int(size) <= capacity else { throw Failure(.tooLarge, detail: UInt32(clamping: capacity)) }
    // Too small to be a table: a field out of range (payload offset 0), not "too large".
    guard Int(size) >= Self.minimumTableSize else { throw Failure(.badArgument, detail: 0) }
    abort()
    let slot = active.map { 1 - $0.slot } ?? 0
    let pages = 1 + (Int(size) + flash.pageSize - 1) / flash.pageSize
    for index in 0..<pages {
      let page = slot * slotPages + index
      guard flash.erase(page: page) else {
        throw Failure(.flashError, detail: UInt32(clamping: page * flash.pageSize), flashAddress: page * flash.pageSize)
      }
    }
    transfer = Transfer(slot: slot, size: size, crc: crc, received: 0)
  }

  /// TABLE_DATA: programs the part of `bytes` at `offset` not received yet; returns the bytes received.
  /// A chunk that lies wholly within what was received is acknowledged without writing (a retransmission).
  /// A flash failure ends the transfer: the slot's state is unknown until a new TABLE_BEGIN erases it.
  public mutating func write(offset: UInt32, bytes: [UInt8]) throws(Failure) -> UInt32 {
    guard var staged = transfer else { throw Failure(.noTransfer) }
    let end = UInt64(offset) + UInt64(bytes.count)
    guard offset <= staged.received, end <= UInt64(staged.size) else {
      throw Failure(.badOffset, detail: staged.received)
    }
    if end <= UInt64(staged.received) { return staged.received }
    var chunk = tail
    chunk.append(contentsOf: bytes[Int(staged.received - offset)...])
    let unit = max(1, flash.programUnit)
    let programmable = chunk.count - chunk.count % unit
    let address = dataAddress(staged.slot) + Int(staged.received) - tail.count
    if programmable > 0 {
      guard flash.program(address: address, bytes: Array(chunk[0..<programmable])) else {
        abort()
        throw Failure(.flashError, detail: UInt32(clamping: address), flashAddress: address)
      }
    }
    tail = Array(chunk[programmable...])
    staged.received = UInt32(end)
    transfer = staged
    return staged.received
  }

  /// TABLE_COMMIT: verifies the staged bytes as read back from flash (`crc` and TABLE_BEGIN's must both
  /// be the CRC-32C of bytes 0 ..< size-4), then writes the commit record last and makes the new table
  /// active. Returns its summary.
  public mutating func commit(crc: UInt32) throws(Failure) -> TableSummary {
    guard let staged = transfer else { throw Failure(.noTransfer) }
    guard staged.received >= staged.size else { throw Failure(.incomplete, detail: staged.received) }
    if !tail.isEmpty {
      let address = dataAddress(staged.slot) + Int(staged.received) - tail.count
      guard flash.program(address: address, bytes: padded(tail)) else {
        abort()
        throw Failure(.flashError, detail: UInt32(clamping: address), flashAddress: address)
      }
      tail = []
    }
    let check = TableCheck(flash: flash, base: dataAddress(staged.slot), size: Int(staged.size))
    let computed = check.crc()
    guard crc == staged.crc, computed == staged.crc else { throw Failure(.crcMismatch, detail: computed) }
    let header: PatternTableHeader
    do throws(PayloadError) {
      header = try check.validate(limits: limits)
    } catch {
      throw Failure(.badTable, detail: UInt32(clamping: error.offset))
    }
    let record = TableCommitRecord(generation: newestGeneration &+ 1, tableSize: staged.size, tableCRC: computed)
    let address = recordAddress(staged.slot)
    let written = flash.program(address: address, bytes: padded(record.encoded()))
    guard written, TableCommitRecord.decode(flash.read(address: address, count: TableCommitRecord.size)) == record
    else {
      abort()
      throw Failure(.flashError, detail: UInt32(clamping: address), flashAddress: address)
    }
    newestGeneration = record.generation
    let table = ActiveTable(slot: staged.slot, generation: record.generation, header: header)
    active = table
    transfer = nil
    return table.summary
  }

  /// TABLE_ABORT: forgets the transfer. The half-written slot has no record, so it stays invalid.
  public mutating func abort() {
    transfer = nil
    tail = []
  }

  /// TABLE_READ: up to `length` bytes at `offset` of the active table or of the bytes staged so far,
  /// clipped to the end (an empty array past it, or when no table is active).
  public func read(_ area: TableArea, offset: UInt32, length: Int) throws(Failure) -> [UInt8] {
    switch area {
    case .active:
      guard let active else { return [] }
      let (start, count) = Self.clip(offset: offset, length: length, end: Int(active.header.size))
      return flash.read(address: dataAddress(active.slot) + start, count: count)
    case .staged:
      guard let staged = transfer else { throw Failure(.noTransfer) }
      let (start, count) = Self.clip(offset: offset, length: length, end: Int(staged.received))
      let programmed = Int(staged.received) - tail.count
      var bytes = flash.read(
        address: dataAddress(staged.slot) + start, count: max(0, min(start + count, programmed) - start))
      if start + count > programmed {
        let from = max(start, programmed) - programmed
        bytes.append(contentsOf: tail[from..<(start + count - programmed)])
      }
      return bytes
    }
  }

  /// Slot `slot`'s pattern, read from flash; nil when there is no active table, the slot is beyond it or
  /// empty. Only the directory up to that entry and the pattern itself are read.
  public func pattern(slot: UInt8) -> Pattern? {
    guard let active, slot < active.header.slotCount else { return nil }
    let base = dataAddress(active.slot)
    let directory = flash.read(
      address: base, count: PatternTable.headerSize + PatternTable.entrySize * (Int(slot) + 1))
    do throws(PayloadError) {
      let entry = try active.header.entry(Int(slot), in: directory)
      guard entry.length > 0, entry.offset + entry.length <= Int(active.header.size) else { return nil }
      // Decoded from flash a few steps at a time: a 512-step pattern's bytes and its steps together would not
      // fit a micro:bit v1's heap.
      return TableCheck(flash: flash, base: base, size: Int(active.header.size)).loadPattern(at: entry, limits: limits)
    } catch {
      return nil
    }
  }

  /// Checks a whole table: the codec's rules (``PatternTable/decode(_:)``), then this board's slot count
  /// and every pattern against `limits`. Throws with the table offset of the first problem.
  public static func validate(_ bytes: [UInt8], limits: PatternLimits) throws(PayloadError) -> PatternTableHeader {
    let header = try PatternTableHeader.read(bytes)
    let table = try PatternTable.decode(bytes)
    guard header.slotCount <= limits.patternSlots else {
      throw PayloadError(.invalidValue, field: "slot_count", offset: 5)
    }
    for (index, slot) in table.slots.enumerated() {
      guard let slot, let problem = limits.problem(in: slot.pattern) else { continue }
      let entry = try header.entry(index, in: bytes)
      throw PayloadError(.invalidValue, field: "pattern", offset: entry.offset + problem)
    }
    return header
  }

  // MARK: - Flash layout

  private func recordAddress(_ slot: Int) -> Int { slot * slotPages * flash.pageSize }
  private func dataAddress(_ slot: Int) -> Int { (slot * slotPages + 1) * flash.pageSize }

  /// The table a whole record commits, if its bytes are intact and valid.
  private func verify(slot: Int, record: TableCommitRecord) -> PatternTableHeader? {
    guard Int(record.tableSize) <= capacity, Int(record.tableSize) >= Self.minimumTableSize else { return nil }
    let check = TableCheck(flash: flash, base: dataAddress(slot), size: Int(record.tableSize))
    guard check.crc() == record.tableCRC else { return nil }
    do throws(PayloadError) {
      return try check.validate(limits: limits)
    } catch {
      return nil
    }
  }

  /// `bytes` padded with erased bytes to a whole number of programming units.
  private func padded(_ bytes: [UInt8]) -> [UInt8] {
    let unit = max(1, flash.programUnit)
    var bytes = bytes
    while bytes.count % unit != 0 { bytes.append(0xFF) }
    return bytes
  }

  private static func clip(offset: UInt32, length: Int, end: Int) -> (start: Int, count: Int) {
    let start = min(Int(offset), end)
    return (start, max(0, min(length, end - start)))
  }
}

/// The record that commits one slot of a ``TableStore``.
///
/// Layout, 20 bytes little-endian: magic u32 "CACR", generation u32, table size u32, table CRC u32
/// (CRC-32C of the table's bytes 0 ..< size-4, as TABLE_BEGIN announced it; a CRC over all the bytes
/// would be the same constant for every valid table), record CRC u32 (CRC-32C of the 16 bytes before).
/// A record torn by a power cut fails its own CRC, so it never commits anything.
public struct TableCommitRecord: Equatable, Sendable {
  /// "CACR" read as a little-endian u32.
  public static let magic: UInt32 = 0x5243_4143
  /// The encoded size.
  public static let size = 20

  /// Higher wins; each commit takes the highest seen plus one.
  public var generation: UInt32
  /// The table's size.
  public var tableSize: UInt32
  /// CRC-32C of the table's bytes 0 ..< tableSize-4.
  public var tableCRC: UInt32

  /// Creates a record.
  public init(generation: UInt32, tableSize: UInt32, tableCRC: UInt32) {
    self.generation = generation
    self.tableSize = tableSize
    self.tableCRC = tableCRC
  }

  /// The record's bytes.
  public func encoded() -> [UInt8] {
    var writer = ByteWriter(capacity: TableCommitRecord.size)
    writer.u32(TableCommitRecord.magic)
    writer.u32(generation)
    writer.u32(tableSize)
    writer.u32(tableCRC)
    writer.u32(CRC32C.checksum(writer.bytes))
    return writer.bytes
  }

  /// Reads a record; nil unless the magic and the record's own CRC are right.
  public static func decode(_ bytes: [UInt8]) -> TableCommitRecord? {
    guard bytes.count >= size else { return nil }
    func u32(_ at: Int) -> UInt32 {
      UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
    guard u32(0) == magic, u32(16) == CRC32C.checksum(bytes[0..<16]) else { return nil }
    return TableCommitRecord(generation: u32(4), tableSize: u32(8), tableCRC: u32(12))
  }
}
