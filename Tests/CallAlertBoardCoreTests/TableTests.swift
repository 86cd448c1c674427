import CallAlertBoardCore
import CallAlertProtocol
import CallAlertVirtualBoard
import Testing

/// The summary a committed table should have: its version, its trailing CRC, its size.
func summary(of bytes: [UInt8], version: UInt32) -> TableSummary {
  let crc = bytes.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
  return TableSummary(version: version, crc: crc, size: UInt32(bytes.count))
}

extension Bench {
  /// The BOOT event this bench's core sent.
  var boot: BootEvent? {
    for (_, event) in events { if case .boot(let boot) = event { return boot } }
    return nil
  }

  /// A bench booted on `flash` with a session open.
  static func booted(on flash: NORFlash, seed: UInt32 = 99, bootReason: BootReason = .powerOn) -> Bench {
    var bench = Bench(flash: flash, seed: seed, bootReason: bootReason)
    bench.hello()
    return bench
  }
}

@Suite("Pattern table")
struct TableTests {
  static let tableA = sampleTable(version: 1).encoded()
  static let tableB: [UInt8] = {
    var table = sampleTable(version: 2)
    table.slots.append(.init(name: Array("long".utf8), pattern: PlaybackTests.long))
    return table.encoded()
  }()

  /// A flash holding table A, committed.
  static let flashWithA: NORFlash = {
    var bench = Bench.booted(on: NORFlash())
    bench.transfer(tableA)
    return bench.core.flash
  }()

  @Test("a transfer commits the table, which then plays by slot")
  func happyPath() {
    var bench = Bench()
    bench.hello()
    let table = Self.tableA
    #expect(
      bench.send(.tableBegin(TableBegin(size: UInt32(table.count), crc: tableCRC(table))))
        == reply(.tableBegin, .tableReady(maxChunk: 1_020)))
    for offset in stride(from: 0, to: table.count, by: 32) {
      let end = min(table.count, offset + 32)
      #expect(
        bench.send(.tableData(offset: UInt32(offset), bytes: Array(table[offset..<end])))
          == reply(.tableData, .tableProgress(received: UInt32(end))))
    }
    let expected = summary(of: table, version: 1)
    #expect(bench.send(.tableCommit(crc: tableCRC(table))) == reply(.tableCommit, .tableCommitted(expected)))
    #expect(bench.core.info.table == expected)
    #expect(bench.core.flash.violations == 0)

    bench.advance(to: 1_000)
    #expect(
      bench.send(.play(PlayRequest(token: 5, capMs: 1_000, source: .slot(2))))
        == reply(.play, .playing(capMs: 1_000)))
    #expect(bench.core.status(nowMs: bench.now).slot == 2)
    bench.advance(to: 3_000)
    let buzz = sampleTable().slots[2]!.pattern
    #expect(Array(bench.timeline.dropFirst()) == expectedChanges(buzz, start: 1_000, cap: 1_000))
    #expect(bench.playEnds == [PlayEndedEvent(token: 5, reason: .completed, playedMs: 750)])
    #expect(bench.send(.play(PlayRequest(token: 5, capMs: 0, source: .slot(1)))) == nak(.play, .badSlot, 1), "empty")
    #expect(bench.send(.play(PlayRequest(token: 5, capMs: 0, source: .slot(3)))) == nak(.play, .badSlot, 3), "beyond")
  }

  @Test("a committed table is found at boot; the next one goes to the other slot and wins")
  func bootFindsTable() {
    var bench = Bench.booted(on: Self.flashWithA)
    #expect(bench.boot == BootEvent(reason: .powerOn, table: .ok))
    #expect(bench.core.table.active?.slot == 0)
    #expect(bench.core.info.table == summary(of: Self.tableA, version: 1))
    #expect(bench.transfer(Self.tableB) == reply(.tableCommit, .tableCommitted(summary(of: Self.tableB, version: 2))))
    #expect(bench.core.table.active?.slot == 1)
    let again = Bench.booted(on: bench.core.flash)
    #expect(again.boot?.table == .ok)
    #expect(again.core.info.table == summary(of: Self.tableB, version: 2))
    #expect(again.core.table.active?.generation == 2)
  }

  @Test("TABLE_DATA and TABLE_COMMIT refusals")
  func refusals() {
    var bench = Bench()
    bench.hello()
    let table = Self.tableA
    let crc = tableCRC(table)
    #expect(bench.send(.tableData(offset: 0, bytes: [1])) == nak(.tableData, .noTransfer))
    #expect(bench.send(.tableCommit(crc: crc)) == nak(.tableCommit, .noTransfer))
    #expect(bench.send(.tableBegin(TableBegin(size: 1_793, crc: 0))) == nak(.tableBegin, .tooLarge, 1_792))
    #expect(
      bench.send(.tableBegin(TableBegin(size: 43, crc: 0))) == nak(.tableBegin, .badArgument, 0),
      "below a header, an entry and a CRC")
    #expect(
      bench.send(.tableBegin(TableBegin(size: UInt32(table.count), crc: crc)))
        == reply(.tableBegin, .tableReady(maxChunk: 1_020)))
    #expect(
      bench.send(.tableData(offset: 0, bytes: Array(table[0..<40]))) == reply(.tableData, .tableProgress(received: 40)))
    #expect(bench.send(.tableData(offset: 41, bytes: [table[41]])) == nak(.tableData, .badOffset, 40), "a gap")
    #expect(
      bench.send(.tableData(offset: 40, bytes: Array(repeating: 0, count: table.count - 39)))
        == nak(.tableData, .badOffset, 40), "past the size")
    #expect(
      bench.send(.tableData(offset: 8, bytes: Array(table[8..<20]))) == reply(.tableData, .tableProgress(received: 40)),
      "a repeat")
    #expect(
      bench.send(.tableData(offset: 30, bytes: Array(table[30..<60])))
        == reply(.tableData, .tableProgress(received: 60)), "an overlap")
    #expect(bench.send(.tableCommit(crc: crc)) == nak(.tableCommit, .incomplete, 60))
    #expect(
      bench.send(.tableData(offset: 60, bytes: Array(table[60...])))
        == reply(.tableData, .tableProgress(received: UInt32(table.count))))
    #expect(bench.send(.tableCommit(crc: crc ^ 1)) == nak(.tableCommit, .crcMismatch, crc), "not the announced CRC")
    #expect(bench.core.flash.violations == 0, "no byte was programmed twice")
    #expect(bench.send(.tableCommit(crc: crc)) == reply(.tableCommit, .tableCommitted(summary(of: table, version: 1))))
    #expect(bench.send(.tableCommit(crc: crc)) == nak(.tableCommit, .noTransfer), "the transfer is over")
  }

  @Test("bytes that arrive intact but differ from the announced CRC are refused with the computed CRC")
  func crcMismatch() {
    var bench = Bench()
    bench.hello()
    var table = Self.tableA
    let announced = tableCRC(table)
    table[20] ^= 0x01  // the bytes the board receives are not those the host's CRC was computed over
    bench.send(.tableBegin(TableBegin(size: UInt32(table.count), crc: announced)))
    bench.send(.tableData(offset: 0, bytes: table))
    #expect(bench.send(.tableCommit(crc: announced)) == nak(.tableCommit, .crcMismatch, tableCRC(table)))
    #expect(tableCRC(table) != announced)
    #expect(bench.core.info.table == .none)
  }

  static let badTables: [(PatternTable, UInt32)] = [
    // 17 slots on a 16-slot board: slot_count.
    (PatternTable(version: 1, slots: Array(repeating: nil, count: 16) + [.init(name: [], pattern: tone)]), UInt32(5)),
    // 150 Hz in slot 0's second step: after the directory, 6 + 7 + 2 into the pattern.
    (
      PatternTable(
        version: 1, slots: [.init(name: [], pattern: Pattern(steps: [step(1), step(1, hz: 150, volume: 1)]))]),
      16 + 24 + 15
    ),
  ]

  @Test(
    "tables that break the codec's rules or the board's limits are refused with the offset",
    arguments: badTables)
  func badTable(table: PatternTable, offset: UInt32) {
    var bench = Bench()
    bench.hello()
    let bytes = table.encoded()
    #expect(bench.transfer(bytes) == nak(.tableCommit, .badTable, offset))
    #expect(bench.core.info.table == .none)
  }

  @Test("a table whose own trailing CRC is wrong is refused at that offset")
  func badTrailingCRC() {
    var bench = Bench()
    bench.hello()
    var bytes = Self.tableA
    bytes[bytes.count - 1] ^= 0xFF
    #expect(bench.transfer(bytes) == nak(.tableCommit, .badTable, UInt32(bytes.count - 4)))
  }

  @Test("TABLE_ABORT discards the transfer; the active table stays")
  func abort() {
    var bench = Bench.booted(on: Self.flashWithA)
    bench.send(.tableBegin(TableBegin(size: UInt32(Self.tableB.count), crc: tableCRC(Self.tableB))))
    bench.send(.tableData(offset: 0, bytes: Array(Self.tableB[0..<50])))
    #expect(bench.core.status(nowMs: bench.now).transferActive)
    #expect(bench.send(.tableAbort) == reply(.tableAbort, .ok))
    #expect(!bench.core.status(nowMs: bench.now).transferActive)
    #expect(bench.send(.tableData(offset: 50, bytes: [1])) == nak(.tableData, .noTransfer))
    #expect(bench.core.info.table == summary(of: Self.tableA, version: 1))
    #expect(Bench.booted(on: bench.core.flash).core.info.table == summary(of: Self.tableA, version: 1))
  }

  @Test("TABLE_READ reads the active or staged bytes, clipped to the table and the session's payload")
  func read() {
    var bench = Bench()
    bench.hello(Hello(maxPayload: 128))
    let a = Self.tableA
    let read = { (bench: inout Bench, area: TableArea, offset: UInt32, length: UInt16) in
      bench.send(.tableRead(TableRead(area: area, offset: offset, length: length)))
    }
    #expect(read(&bench, .active, 0, 16) == reply(.tableRead, .tableBytes([])), "no table")
    #expect(read(&bench, .staged, 0, 16) == nak(.tableRead, .noTransfer))
    bench.transfer(a, chunk: 100)
    #expect(read(&bench, .active, 0, 16) == reply(.tableRead, .tableBytes(Array(a[0..<16]))))
    #expect(read(&bench, .active, 130, 100) == reply(.tableRead, .tableBytes(Array(a[130...]))))
    #expect(read(&bench, .active, 5_000, 10) == reply(.tableRead, .tableBytes([])))
    #expect(
      read(&bench, .active, 0, 1_000) == reply(.tableRead, .tableBytes(Array(a[0..<128]))), "the session's payload")
    let b = Self.tableB
    bench.send(.tableBegin(TableBegin(size: UInt32(b.count), crc: tableCRC(b))))
    bench.send(.tableData(offset: 0, bytes: Array(b[0..<64])))
    #expect(read(&bench, .staged, 50, 50) == reply(.tableRead, .tableBytes(Array(b[50..<64]))))
  }

  @Test("flash that programs in 8-byte units gets aligned writes, whatever the chunk sizes")
  func programUnit() {
    var bench = Bench.booted(on: NORFlash(programUnit: 8))
    let b = Self.tableB
    bench.send(.tableBegin(TableBegin(size: UInt32(b.count), crc: tableCRC(b))))
    bench.send(.tableData(offset: 0, bytes: Array(b[0..<13])))
    bench.send(.tableData(offset: 13, bytes: Array(b[13..<30])))
    #expect(
      bench.send(.tableRead(TableRead(area: .staged, offset: 10, length: 100)))
        == reply(.tableRead, .tableBytes(Array(b[10..<30]))), "the unprogrammed tail is read from RAM")
    var offset = 30
    while offset < b.count {
      let end = min(b.count, offset + 13)
      bench.send(.tableData(offset: UInt32(offset), bytes: Array(b[offset..<end])))
      offset = end
    }
    #expect(
      bench.send(.tableCommit(crc: tableCRC(b))) == reply(.tableCommit, .tableCommitted(summary(of: b, version: 2))))
    #expect(bench.core.flash.violations == 0)
    #expect(Bench.booted(on: bench.core.flash).core.info.table == summary(of: b, version: 2))
  }

  @Test("a programming failure is refused with the address, raises FAULT flash, and ends the transfer")
  func programFailure() {
    var flash = NORFlash()
    flash.failProgramAt = 256 + 100  // slot A's data starts after its record page
    var bench = Bench.booted(on: flash)
    let a = Self.tableA
    bench.send(.tableBegin(TableBegin(size: UInt32(a.count), crc: tableCRC(a))))
    #expect(
      bench.send(.tableData(offset: 0, bytes: Array(a[0..<64]))) == reply(.tableData, .tableProgress(received: 64)))
    #expect(bench.send(.tableData(offset: 64, bytes: Array(a[64...]))) == nak(.tableData, .flashError, 256 + 64))
    #expect(bench.faults.map(\.event) == [FaultEvent(.flash, detail: 256 + 64)])
    #expect(bench.send(.tableData(offset: 64, bytes: Array(a[64...]))) == nak(.tableData, .noTransfer))
    #expect(bench.core.status(nowMs: bench.now).counters.faults == 1)
  }

  @Test("an erase failure refuses TABLE_BEGIN with the page's address")
  func eraseFailure() {
    var flash = Self.flashWithA
    flash.failErasePage = 9  // slot B is pages 8-15: its record page, then the data pages a table needs
    var bench = Bench.booted(on: flash)
    #expect(
      bench.send(.tableBegin(TableBegin(size: UInt32(Self.tableB.count), crc: 0)))
        == nak(.tableBegin, .flashError, 9 * 256))
    #expect(bench.faults.map(\.event) == [FaultEvent(.flash, detail: 9 * 256)])
    #expect(bench.core.info.table == summary(of: Self.tableA, version: 1))
  }

  @Test("a transfer cut off after any chunk leaves the previous table active")
  func cutAtEveryChunk() {
    let b = Self.tableB
    let chunk = 24
    let chunks = (b.count + chunk - 1) / chunk
    for cut in 0...chunks {
      var bench = Bench.booted(on: Self.flashWithA)
      bench.send(.tableBegin(TableBegin(size: UInt32(b.count), crc: tableCRC(b))))
      for index in 0..<cut {
        let range = index * chunk..<min(b.count, (index + 1) * chunk)
        bench.send(.tableData(offset: UInt32(range.lowerBound), bytes: Array(b[range])))
      }
      let rebooted = Bench.booted(on: bench.core.flash)
      #expect(rebooted.boot == BootEvent(reason: .powerOn, table: .ok), "cut after \(cut) chunks")
      #expect(rebooted.core.info.table == summary(of: Self.tableA, version: 1), "cut after \(cut) chunks")
    }
  }

  @Test("power lost at any byte of the data or the commit record boots a valid table", arguments: 0..<50)
  func powerLoss(seed: Int) {
    var random = SplitMix64(seed: UInt64(seed))
    let b = Self.tableB
    let total = b.count + TableCommitRecord.size
    // Half the seeds aim at the commit record, the other half anywhere.
    let budget =
      seed % 2 == 0 ? Int.random(in: b.count...total, using: &random) : Int.random(in: 0...total, using: &random)
    var flash = Self.flashWithA
    flash.powerBudget = budget
    var bench = Bench.booted(on: flash)
    var answer = bench.send(.tableBegin(TableBegin(size: UInt32(b.count), crc: tableCRC(b))))
    var offset = 0
    while offset < b.count, case .reply? = answer {
      let end = min(b.count, offset + Int.random(in: 1...100, using: &random))
      answer = bench.send(.tableData(offset: UInt32(offset), bytes: Array(b[offset..<end])))
      offset = end
    }
    if case .reply? = answer { answer = bench.send(.tableCommit(crc: tableCRC(b))) }
    var after = bench.core.flash
    #expect(after.violations == 0)
    after.restorePower()
    let rebooted = Bench.booted(on: after)
    #expect(rebooted.boot?.table == .ok, "budget \(budget)")
    let table = rebooted.core.info.table
    if budget >= total {
      #expect(answer == reply(.tableCommit, .tableCommitted(summary(of: b, version: 2))))
      #expect(table == summary(of: b, version: 2))
    } else {
      if case .nak(_, let refusal)? = answer {
        #expect(refusal.code == .flashError)
      } else {
        Issue.record("budget \(budget): expected a flash error, got \(String(describing: answer))")
      }
      #expect(table == summary(of: Self.tableA, version: 1), "budget \(budget)")
    }
  }

  @Test("power lost during the very first transfer boots with no table, and the board still plays inline")
  func firstTransferCut() {
    var flash = NORFlash()
    flash.powerBudget = 70
    var bench = Bench.booted(on: flash)
    bench.transfer(Self.tableA)
    var after = bench.core.flash
    after.restorePower()
    var rebooted = Bench.booted(on: after)
    #expect(rebooted.boot?.table == BootTableState.none)
    #expect(rebooted.send(play(1)) == reply(.play, .playing(capMs: 30_000)))
  }

  @Test("a damaged newest table falls back to the previous one, and the next commit replaces the damaged slot")
  func fallBack() {
    var bench = Bench.booted(on: Self.flashWithA)
    bench.transfer(Self.tableB)
    var flash = bench.core.flash
    flash.corrupt(address: 9 * 256 + 8, mask: 0x00)  // slot B's data: the table's version field
    var rebooted = Bench.booted(on: flash)
    #expect(rebooted.boot == BootEvent(reason: .powerOn, table: .fellBack))
    #expect(rebooted.core.info.table == summary(of: Self.tableA, version: 1))
    let c = sampleTable(version: 3).encoded()
    #expect(rebooted.transfer(c) == reply(.tableCommit, .tableCommitted(summary(of: c, version: 3))))
    #expect(rebooted.core.table.active?.slot == 1)
    #expect(rebooted.core.table.active?.generation == 3)
    let third = Bench.booted(on: rebooted.core.flash)
    #expect(third.boot?.table == .ok)
    #expect(third.core.info.table == summary(of: c, version: 3))
  }

  @Test("a torn commit record commits nothing: the older table is simply the newest")
  func tornRecord() {
    var bench = Bench.booted(on: Self.flashWithA)
    bench.transfer(Self.tableB)
    var flash = bench.core.flash
    flash.corrupt(address: 8 * 256 + 18, mask: 0x0F)  // slot B's record CRC
    let rebooted = Bench.booted(on: flash)
    #expect(rebooted.boot?.table == .ok)
    #expect(rebooted.core.info.table == summary(of: Self.tableA, version: 1))
  }

  @Test("a flash too small for two slots offers no table capacity")
  func tinyFlash() {
    var bench = Bench.booted(on: NORFlash(pageSize: 256, pageCount: 3))
    #expect(bench.core.info.capabilities.tableCapacity == 0)
    #expect(bench.send(.tableBegin(TableBegin(size: 100, crc: 0))) == nak(.tableBegin, .tooLarge, 0))
  }
}
