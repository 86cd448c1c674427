import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import Clocks
import Synchronization
import Testing

/// A table of `slots` patterns of `steps` steps each, numbered `version`.
func flashTable(version: UInt32, slots: Int = 4, steps: Int = 40) -> [UInt8] {
  var entries: [PatternTable.Slot?] = []
  for slot in 0..<slots {
    var pattern: [PatternStep] = []
    for step in 0..<steps {
      let hz = UInt16(400 + 10 * step + slot)
      pattern.append(
        PatternStep(durationMs: UInt16(50 + step), buzzerHz: hz, buzzerVolume: 100, motor: UInt8(step % 200)))
    }
    entries.append(
      PatternTable.Slot(name: Array("p\(slot)-v\(version)".utf8), pattern: Pattern(steps: pattern, repeatCount: 2)))
  }
  return PatternTable(version: version, slots: entries).encoded()
}

@Suite("Flashing the virtual board", .timeLimit(.minutes(1)))
struct TableFlasherTests {
  @Test func flashCommitsVerifiesAndIsANoOpTheSecondTime() async throws {
    let clock = TestClock()
    let rig = LoopbackRig(clock: clock)
    let table = flashTable(version: 7)
    let flasher = TableFlasher(client: rig.client, clock: clock)
    let progress = Mutex<[Int]>([])
    let finished = try await driving(clock, within: .seconds(60)) {
      let report = try await flasher.flash(table) { done, _ in progress.withLock { $0.append(done) } }
      #expect(report.outcome == .flashed)
      #expect(report.installed.version == 7 && report.installed.size == UInt32(table.count))
      #expect(progress.withLock { $0.last } == table.count)
      #expect(try await flasher.readInstalledTable() == table)
      #expect(try await flasher.flash(table).outcome == .alreadyInstalled)
      #expect(try await flasher.flash(table, dryRun: true, force: true).outcome == .wouldFlash)
      // The board plays the new table by slot.
      #expect(try await rig.client.play(PlayRequest(token: 1, capMs: 100, source: .slot(3))) == 100)
      return true
    }
    #expect(finished == true, "not done within 60 s of test-clock time")
    await rig.shutDown()
  }

  @Test(arguments: [UInt64(21), 22, 23])
  func lostAndCorruptedChunksAreResentAndTheTableArrivesWhole(seed: UInt64) async throws {
    // 0.01 % of bytes each dropped, corrupted, duplicated: about one 1 KB chunk in four is damaged on the way.
    let faults = FaultProfile(dropRate: 0.0001, corruptRate: 0.0001, duplicateRate: 0.0001)
    let clock = TestClock()
    let rig = LoopbackRig(
      clock: clock, options: BoardClientOptions(timing: LinkTiming(maxTries: 10)), shaped: faults, seed: seed)
    let table = flashTable(version: 2, slots: 16, steps: 100)  // about 11 KB: 11 chunks
    let flasher = TableFlasher(client: rig.client, clock: clock)
    let report = try #require(try await driving(clock, within: .seconds(120)) { try await flasher.flash(table) })
    #expect(report.outcome == .flashed)
    #expect(try await driving(clock, within: .seconds(60)) { try await flasher.readInstalledTable() } == table)
    #expect(await rig.client.linkStatistics.retransmissions > 0)
    await rig.shutDown()
  }

  @Test func aRebootMidTransferKeepsTheOldTableAndARerunCompletes() async throws {
    let clock = TestClock()
    let rig = LoopbackRig(clock: clock)
    let flasher = TableFlasher(client: rig.client, clock: clock)
    let old = flashTable(version: 1)
    let new = flashTable(version: 2, slots: 10)
    let rebooted = Mutex(false)
    let runner = rig.runner
    let finished = try await driving(clock, within: .seconds(120)) {
      _ = try await flasher.flash(old)
      await #expect(throws: TableFlasher<TestClock<Duration>>.Failure.self) {
        _ = try await flasher.flash(new) { done, total in
          // Halfway through, the board restarts (a watchdog, a brown-out).
          let first = rebooted.withLock { already in
            defer { already = true }
            return !already
          }
          if done < total && first { Task { await runner.reboot() } }
        }
      }
      // The session comes back; the board still plays the old table.
      let info = try await rig.client.currentInfo()
      #expect(info.table.version == 1)
      #expect(try await flasher.flash(new).outcome == .flashed)
      #expect(try await flasher.readInstalledTable() == new)
      return true
    }
    #expect(finished == true, "not done within 120 s of test-clock time")
    await rig.shutDown()
  }

  /// Power fails after every Nth byte programmed during the second flash: the transfer's data, and the
  /// commit record. Whatever the moment, the board boots a valid table (the old or, once the record is
  /// complete, the new one) and a re-run installs the new one.
  @Test(arguments: stride(from: 0, through: 2_200, by: 137).map { $0 } + [2_201, 2_210, 2_220])
  func aPowerCutAtAnyByteBootsAValidTable(cutAfter: Int) async throws {
    let flash = VirtualFlash()
    let clock = TestClock()
    let rig = LoopbackRig(clock: clock, board: VirtualBoard(flash: flash))
    let flasher = TableFlasher(client: rig.client, clock: clock)
    let new = flashTable(version: 2, slots: 5)
    let finished = try await driving(clock, within: .seconds(120)) {
      _ = try await flasher.flash(flashTable(version: 1, slots: 2))
      let base = await rig.runner.withBoard { $0.flash.programmedBytes }
      await rig.runner.withBoard { $0.flash.powerCutAfterProgrammedBytes = base + cutAfter }
      let first = try? await flasher.flash(new)
      let info = try await rig.client.currentInfo()
      #expect(info.table.version == 1 || info.table.version == 2)
      #expect(info.table != .none)
      if first?.outcome == .flashed { #expect(info.table.version == 2) }
      // Run again at once, while the client may still be noticing the reboot: it must complete.
      let again = try await flasher.flash(new)
      #expect(again.outcome == .flashed || again.outcome == .alreadyInstalled)
      #expect(try await flasher.readInstalledTable() == new)
      return true
    }
    #expect(finished == true, "not done within 120 s of test-clock time")
    await rig.shutDown()
  }

  /// The line goes dead a third of the way through (until the host's next HELLO): the link gives up on the
  /// chunks in flight, and the flasher re-synchronises, reads where the staged bytes end from the board's
  /// status and resumes from there with chunks half as large, instead of failing or starting over.
  /// On a test clock: its 20 ms deadlines on a real clock let a busy machine add a resumption of its own.
  @Test func aTransferCutShortResumesFromTheBoardsStatus() async throws {
    let clock = TestClock()
    let (hostEnd, boardEnd) = MemoryTransport.pair()
    let line = MutableLine(wrapping: hostEnd)
    let runner = VirtualBoardRunner(board: VirtualBoard(), transport: boardEnd, clock: clock)
    let run = Task { try await runner.run() }
    let options = BoardClientOptions(hello: Hello(window: 2), timing: LinkTiming(baseTimeoutMs: 20, maxTries: 2))
    let client = BoardClient(transport: line, clock: clock, options: options)
    let table = flashTable(version: 9, slots: 8, steps: 150)
    let cut = Mutex(false)
    let acknowledged = Mutex<[Int]>([])
    let flasher = TableFlasher(client: client, clock: clock)
    let report = try #require(
      try await driving(clock, within: .seconds(30)) {
        try await flasher.flash(table) { done, total in
          acknowledged.withLock { $0.append(done) }
          if done * 3 >= total, !cut.withLock({ $0 }) {
            cut.withLock { $0 = true }
            line.muteUntilHello()
          }
        }
      })
    #expect(cut.withLock { $0 })
    #expect(report.outcome == .flashed)
    #expect(report.installed == TableSummary(version: 9, crc: report.installed.crc, size: UInt32(table.count)))
    #expect(report.resumptions == 1)
    #expect(report.smallestChunkSize == report.chunkSize / 2)
    // Resumed, not restarted: fewer chunks than a fresh start at the smaller size after the cut would need.
    #expect(
      report.chunks < (table.count + report.chunkSize - 1) / report.chunkSize + table.count / report.smallestChunkSize)
    let progress = acknowledged.withLock { $0 }
    #expect(progress == progress.sorted() && progress.last == table.count)
    await client.close()
    await runner.stop()
    _ = await run.result
  }

  /// A session negotiated at a 256-byte payload: the flasher sizes its chunks and reads by it, and a read
  /// asked for larger pieces gets short answers and goes on from where each ended (two are in flight, so the
  /// second must not be appended after a short first).
  @Test func aSmallNegotiatedPayloadSizesChunksAndShortReadsContinue() async throws {
    let clock = TestClock()
    let rig = LoopbackRig(clock: clock, options: BoardClientOptions(hello: Hello(maxPayload: 256)))
    let flasher = TableFlasher(client: rig.client, clock: clock)
    let table = flashTable(version: 6, slots: 3, steps: 60)
    let finished = try await driving(clock, within: .seconds(60)) {
      let report = try await flasher.flash(table)
      #expect(report.outcome == .flashed)
      #expect(report.chunkSize == 252, "the negotiated payload less the 4-byte offset")
      #expect(await rig.client.terms?.maxPayload == 256)
      #expect(try await flasher.read(area: .active, size: table.count, chunk: 1_024) == table)
      #expect(try await flasher.readInstalledTable() == table)
      return true
    }
    #expect(finished == true, "not done within 60 s of test-clock time")
    await rig.shutDown()
  }
}
