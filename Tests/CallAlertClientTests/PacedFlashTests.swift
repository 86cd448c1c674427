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

/// Flashing through paced lines (115 200 and 38 400 baud, clean or lossy) on one test clock: the line's
/// pacing, the board, the client's deadlines and the flasher all wait on it, and the test moves it a
/// millisecond at a time. "No retransmission on a clean line" is then a fact about the protocol's
/// deadlines, not about how busy the machine is (these ran in real time, alone, before).
@Suite("Flashing over a paced line", .timeLimit(.minutes(1)))
struct PacedFlashTests {
  /// Virtual time a flash may take before the test gives up on it (16 KB at 115 200 baud takes under 2 s).
  static let limit = Duration.seconds(30)

  /// A transfer through a line paced at 115 200 baud with 1 ms of latency each way, a whole
  /// window in flight. The chunks reach the board in offset order (the board refuses any other) and every
  /// deadline allows for the bytes ahead, so a clean line needs no retransmission at all; the read-back's
  /// 1 KiB answers are counted too. (Before both were fixed this 16 KB flash failed at TABLE_COMMIT after
  /// 37 retransmissions.)
  @Test func a16KBTransferOnALinkPacedAt115200BaudNeedsNoRetransmission() async throws {
    let (hostEnd, boardEnd) = MemoryTransport.pair()
    let clock = TestClock()
    let paced = ShapedTransport(wrapping: boardEnd, pacing: .usbSerial115200, faults: .none, seed: 1, clock: clock)
    let runner = VirtualBoardRunner(board: VirtualBoard(), transport: paced, clock: clock)
    let run = Task { try await runner.run() }
    let client = BoardClient(transport: hostEnd, clock: clock)
    let table = flashTable(version: 3, slots: 8, steps: 290)
    #expect(table.count > 16_000 && table.count < 17_000, "\(table.count) bytes")
    let flasher = TableFlasher(client: client, clock: clock)
    let report = try #require(try await driving(clock, within: Self.limit) { try await flasher.flash(table) })
    #expect(report.outcome == .flashed)
    #expect(report.installed.size == UInt32(table.count))
    // Throughput is measured by `make bench`; here only that it was paced (below the 8N1 ceiling of 11 520 B/s).
    #expect(report.throughput < 11_520)
    #expect(await client.linkStatistics.retransmissions == 0)
    await client.close()
    await runner.stop()
    _ = await run.result
  }

  /// A line paced at 115 200 baud that drops, corrupts and duplicates 0.01 % of bytes each (about one 1 KiB
  /// frame in four damaged): the flash completes through retransmissions, its progress only growing.
  @Test(arguments: [UInt64(7), 8, 9])
  func aLossyPacedLineFlashesThroughRetransmissions(seed: UInt64) async throws {
    let (hostEnd, boardEnd) = MemoryTransport.pair()
    let clock = TestClock()
    let faults = FaultProfile(dropRate: 0.000_1, corruptRate: 0.000_1, duplicateRate: 0.000_1)
    // On the host's side, so that the host's writes wait for the line as on a real port.
    let lossy = ShapedTransport(wrapping: hostEnd, pacing: .usbSerial115200, faults: faults, seed: seed, clock: clock)
    let runner = VirtualBoardRunner(board: VirtualBoard(), transport: boardEnd, clock: clock)
    let run = Task { try await runner.run() }
    let client = BoardClient(transport: lossy, clock: clock)
    let table = flashTable(version: 4, slots: 4, steps: 150)
    let acknowledged = Mutex<[Int]>([])
    let flasher = TableFlasher(client: client, clock: clock)
    let report = try #require(
      try await driving(clock, within: Self.limit) {
        try await flasher.flash(table) { done, _ in acknowledged.withLock { $0.append(done) } }
      })
    #expect(report.outcome == .flashed)
    #expect(report.installed.size == UInt32(table.count))
    let retransmissions = await client.linkStatistics.retransmissions
    #expect(lossy.injected.total > 0 && retransmissions > 0)
    let progress = acknowledged.withLock { $0 }
    #expect(progress == progress.sorted() && progress.last == table.count, "progress only grows, to the end")
    await client.close()
    await runner.stop()
    _ = await run.result
  }

  /// A UART at 38 400 baud carries 3.84 bytes/ms where the standard timing assumes 11: a window of 1 KiB
  /// chunks would time out while still on the wire. With the timing for that baud rate (as `--port` and the
  /// daemon use), the flash needs no retransmission.
  @Test func aSlowerUARTUsesDeadlinesForItsBaudRate() async throws {
    let (hostEnd, boardEnd) = MemoryTransport.pair()
    let clock = TestClock()
    let line = ShapedTransport(
      wrapping: hostEnd, pacing: WirePacing(baud: 38_400, latencyMicros: 1_000), faults: .none, seed: 1, clock: clock)
    let runner = VirtualBoardRunner(board: VirtualBoard(), transport: boardEnd, clock: clock)
    let run = Task { try await runner.run() }
    let client = BoardClient(
      transport: line, clock: clock, options: BoardClientOptions(timing: LinkTiming(baudRate: 38_400)))
    let table = flashTable(version: 5, slots: 4, steps: 150)
    let flasher = TableFlasher(client: client, clock: clock)
    let report = try #require(try await driving(clock, within: Self.limit) { try await flasher.flash(table) })
    #expect(report.outcome == .flashed)
    #expect(report.throughput < 3_840, "paced at 38 400 baud")
    #expect(await client.linkStatistics.retransmissions == 0)
    await client.close()
    await runner.stop()
    _ = await run.result
  }
}
