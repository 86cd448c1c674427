import CallAlertClient
import CallAlertPatterns
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import Clocks
import Foundation
import Logging
import Testing

@testable import CallAlertDaemon

/// The table sync behind `patterns.file`: a ringing board is not flashed; an idle one is,
/// with the flasher's verify; a board that has the table already is left alone.
@Suite("Board table sync", .serialized, .timeLimit(.minutes(1)))
struct BoardTableSyncTests {
  @Test func aRingingBoardWaitsAnIdleOneIsFlashedAndAMatchingOneIsLeftAlone() async throws {
    let board = try PseudoTerminalBoard()
    // The client's deadlines on a test clock that stays still: a pseudo-terminal loses nothing, so no
    // retransmission is needed, and a loaded machine (a load of 14 once) cannot make the board's answers
    // miss every retry's deadline. A board that never answered would meet the suite's time limit.
    let clock = TestClock()
    let client = BoardClient(transport: try SerialPort.open(board.slavePath), clock: clock)
    _ = try await client.connect()
    let wanted = try RingAndVibrateTests.build()
    let log = CapturedLog(level: .info)
    let sync = BoardTableSync(board: "desk", wanted: wanted, clock: clock, logger: log.logger)

    let ringing = await sync.run(client: client, mayFlash: { false })
    #expect(ringing.flashDeferred && ringing.known && ringing.table == nil)
    #expect(try await client.currentInfo().table == .none, "nothing was flashed while ringing")

    let idle = await sync.run(client: client, mayFlash: { true })
    #expect(!idle.flashDeferred && idle.table == wanted.table)
    let installed = try await client.currentInfo().table
    #expect(installed.version == 7 && installed.crc == wanted.crc)

    let again = await sync.run(client: client, mayFlash: { true })
    #expect(again.table == wanted.table && !again.flashDeferred)
    let lines = log.messages
    #expect(lines.contains { $0.contains("flashing it once the board stops ringing") })
    #expect(lines.filter { $0.contains("flashed family.yaml") }.count == 1)
    #expect(lines.contains { $0.contains("pattern table matches family.yaml") })
    await client.close()
    await board.stop()
  }
}
