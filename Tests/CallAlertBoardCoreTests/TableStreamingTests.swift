import CallAlertBoardCore
import CallAlertProtocol
import Testing

/// A table is verified from flash a piece at a time (TableCheck), never read back whole: a micro:bit v1 has
/// 16 KiB of RAM and the table capacity is 31 KiB.
@Suite("Pattern table streaming")
struct TableStreamingTests {
  /// 16 slots of 240 steps each: about 27 KiB.
  static let bigTable: [UInt8] = {
    let steps = (0..<240).map { index in
      PatternStep(durationMs: 10, buzzerHz: UInt16(400 + index), buzzerVolume: 100, motor: 0, leds: 1)
    }
    let slots = (0..<16).map { index in
      Optional(PatternTable.Slot(name: Array("p\(index)".utf8), pattern: Pattern(steps: steps)))
    }
    return PatternTable(version: 7, slots: slots).encoded()
  }()

  @Test("commit and boot of a 27 KiB table never read more than 256 bytes from flash at once")
  func commitReadsPieces() {
    #expect(Self.bigTable.count > 27_000)
    let flash = NORFlash(pageSize: 1_024, pageCount: 64)
    var bench = Bench.booted(on: flash)
    let expected = summary(of: Self.bigTable, version: 7)
    #expect(bench.transfer(Self.bigTable) == reply(.tableCommit, .tableCommitted(expected)))
    let onePattern = 256
    #expect(flash.reads.largest <= onePattern, "largest read \(flash.reads.largest) bytes")
    flash.reads.reset()
    let rebooted = Bench.booted(on: bench.core.flash)
    #expect(rebooted.core.info.table == expected)
    #expect(flash.reads.largest <= onePattern, "largest read at boot \(flash.reads.largest) bytes")
  }

  /// Every single-byte corruption of a small table: the streamed check refuses it at the same offset as the
  /// whole-table rules (TableStore.validate), or accepts it exactly when they do.
  @Test("the streamed check agrees with the whole-table rules on every corrupted byte")
  func agreesWithWholeTableRules() {
    let table = TableTests.tableB
    let limits = BoardConfiguration().patternLimits
    for index in 0..<table.count - 4 {
      for flip: UInt8 in [0x01, 0x80, 0xFF] {
        var bytes = table
        bytes[index] ^= flip
        // Keep the trailing CRC right, so the rules behind it are reached.
        let crc = CRC32C.checksum(bytes[0..<bytes.count - 4])
        for shift in 0..<4 { bytes[bytes.count - 4 + shift] = UInt8(truncatingIfNeeded: crc >> (8 * shift)) }
        var whole: Int? = nil
        do throws(PayloadError) { _ = try TableStore<NORFlash>.validate(bytes, limits: limits) } catch {
          whole = error.offset
        }
        var bench = Bench()
        bench.hello()
        let answer = bench.transfer(bytes)
        if let whole {
          #expect(answer == nak(.tableCommit, .badTable, UInt32(whole)), "byte \(index) ^ \(flip)")
        } else {
          let version = bytes[8..<12].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
          #expect(
            answer == reply(.tableCommit, .tableCommitted(summary(of: bytes, version: version))),
            "byte \(index) ^ \(flip)")
        }
      }
    }
  }
}
