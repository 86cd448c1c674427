import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import SystemPackage
import Testing

@testable import CallAlertClient

#if canImport(Glibc)
  import Glibc
#endif

/// `--port auto` and `callalert ports` while `callalert run` holds the board: "busy, held by …", never
/// "no board found".
@Suite("Board locator and busy ports", .timeLimit(.minutes(1)))
struct BoardLocatorBusyTests {
  @Test func aProbedPortHeldByAnotherOpenIsReportedBusyWithItsHolder() async throws {
    let board = try PseudoTerminalBoard(board: .init())
    // Hosts come and go on this board, as on a real one: its end must not see a hang-up in between.
    let keepAlive = try PseudoTerminal.holdOpen(slavePath: board.slavePath)
    defer { try? keepAlive.close() }
    let daemon = try PseudoTerminal.openSlave(board.slavePath)  // what `callalert run` holds
    let probed = await BoardLocator.probe([BoardLocator.Port(path: board.slavePath)], all: false)
    #expect(probed[0].board == nil)
    #expect(probed[0].isBusy)
    #expect(probed[0].heldBy?.pid == getpid())
    #expect(probed[0].probeError?.contains("busy") == true)

    let error = #expect(throws: BoardLocatorError.self) { _ = try BoardLocator.choose(from: probed) }
    #expect(
      error
        == .busy([.init(path: board.slavePath, holder: PortHolder(pid: getpid(), command: probed[0].heldBy?.command))]))
    #expect(
      error?.description.hasPrefix("no free CallAlert board: \(board.slavePath) is busy, held by this process") == true)

    // Released, the same port answers as a board.
    daemon.close()
    await daemon.waitUntilReleased()
    // The virtual board runs in this process, on a pool that a parallel test run keeps busy: the probe's own
    // 300 ms is for a real board, and was once too short here (CI failed with "HELLO got no answer").
    let patient = LinkTiming(baseTimeoutMs: 2_000, maxTries: 3)
    let free = await BoardLocator.probe([BoardLocator.Port(path: board.slavePath)], all: false, timing: patient)
    #expect(free[0].board != nil && !free[0].isBusy, "\(free[0].probeError ?? "")")
    #expect(try BoardLocator.choose(from: free) == board.slavePath)
    await board.stop()
  }

  @Test func noBoardAndNothingBusyIsStillNoBoard() {
    #expect(throws: BoardLocatorError.noBoard) {
      _ = try BoardLocator.choose(from: [BoardLocator.Port(path: "/dev/null")])
    }
  }
}
