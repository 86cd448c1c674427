import CallAlertProtocol

/// Checks a table stored in flash a piece at a time, with the same rules, the same order and the same error
/// offsets as ``TableStore/validate(_:limits:)`` (``PatternTableHeader/read(_:)``, ``PatternTable/decode(_:)``,
/// then this board's limits), but never holding more than a few hundred bytes of it in RAM.
///
/// Why: a micro:bit v1 has 16 KiB of RAM in all; reading a 31 KiB table back whole to verify it is
/// impossible there. Memory used: one ``chunkSize`` read for the CRC, one directory entry, ``stepsPerRead``
/// steps of one pattern.
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
      _ = try checkPattern(at: entry, limits: nil)
      nextFree = entry.offset + entry.length
    }
    for index in 0..<Int(header.slotCount) {
      let entry = try entry(index, of: header)
      guard entry.length > 0, let problem = try checkPattern(at: entry, limits: limits) else { continue }
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

  /// The steps read at a time while checking a pattern.
  static var stepsPerRead: Int { 32 }

  /// Checks the pattern `entry` points at without holding its steps: ``Pattern/decode(_:)``'s rules, thrown
  /// with table offsets; then, with `limits`, returns the offset within the pattern of the first field that
  /// breaks one (as ``PatternLimits/problem(in:)``), nil when it fits.
  func checkPattern(at entry: PatternTableHeader.Entry, limits: PatternLimits?) throws(PayloadError) -> Int? {
    func shifted(_ error: PayloadError, by base: Int) -> PayloadError {
      PayloadError(error.kind, field: error.field, offset: entry.offset + base + error.offset)
    }
    let start = entry.offset
    var reader = ByteReader(flash.read(address: base + start, count: min(entry.length, Pattern.headerSize)))
    let count: Int
    do throws(PayloadError) {
      let flags = try reader.u8("pattern.flags")
      guard flags == 0 else { throw reader.invalid("pattern.flags", width: 1) }
      _ = try reader.u8("pattern.repeat")
      let loopStart = try reader.u16("pattern.loop_start")
      let steps = try reader.u16("pattern.step_count")
      guard steps > 0 else { throw reader.invalid("pattern.step_count", width: 2) }
      guard loopStart < steps else {
        throw PayloadError(.invalidValue, field: "pattern.loop_start", offset: reader.offset - 4)
      }
      guard entry.length - Pattern.headerSize >= Int(steps) * PatternStep.size else {
        throw PayloadError(.truncated, field: "pattern.steps", offset: reader.offset)
      }
      count = Int(steps)
    } catch {
      throw shifted(error, by: 0)
    }
    if let limits, count > Int(limits.maxSteps) { return 4 }
    var index = 0
    while index < count {
      let batch = min(Self.stepsPerRead, count - index)
      let at = Pattern.headerSize + index * PatternStep.size
      var steps = ByteReader(flash.read(address: base + start + at, count: batch * PatternStep.size))
      for step in 0..<batch {
        do throws(PayloadError) {
          let duration = try steps.u16("step.duration_ms")
          guard duration > 0 else { throw steps.invalid("step.duration_ms", width: 2) }
          let hz = try steps.u16("step.buzzer_hz")
          _ = try steps.bytes(3, "step.rest")
          if let limits, hz != 0, hz < limits.buzzerMinHz || hz > limits.buzzerMaxHz {
            return Pattern.headerSize + (index + step) * PatternStep.size + 2
          }
        } catch {
          throw shifted(error, by: at)
        }
      }
      index += batch
    }
    let end = Pattern.headerSize + count * PatternStep.size
    if entry.length > end {
      throw PayloadError(.trailingBytes, field: "entry.length", offset: entry.offset + end)
    }
    return nil
  }

  /// The pattern `entry` points at, decoded from flash ``stepsPerRead`` steps at a time (the steps array is
  /// the only thing that grows with it); nil when it breaks a rule or `limits`.
  func loadPattern(at entry: PatternTableHeader.Entry, limits: PatternLimits) -> Pattern? {
    guard (try? checkPattern(at: entry, limits: limits)) == .some(nil) else { return nil }
    var reader = ByteReader(flash.read(address: base + entry.offset, count: Pattern.headerSize))
    do throws(PayloadError) {
      _ = try reader.u8("pattern.flags")
      let repeatCount = try reader.u8("pattern.repeat")
      let loopStart = try reader.u16("pattern.loop_start")
      let count = Int(try reader.u16("pattern.step_count"))
      var steps: [PatternStep] = []
      steps.reserveCapacity(count)
      while steps.count < count {
        let batch = min(Self.stepsPerRead, count - steps.count)
        let at = entry.offset + Pattern.headerSize + steps.count * PatternStep.size
        var chunk = ByteReader(flash.read(address: base + at, count: batch * PatternStep.size))
        for _ in 0..<batch {
          steps.append(
            PatternStep(
              durationMs: try chunk.u16("step.duration_ms"), buzzerHz: try chunk.u16("step.buzzer_hz"),
              buzzerVolume: try chunk.u8("step.buzzer_volume"), motor: try chunk.u8("step.motor"),
              leds: try chunk.u8("step.leds")))
        }
      }
      return Pattern(steps: steps, repeatCount: repeatCount, loopStart: loopStart)
    } catch {
      return nil
    }
  }
}
