import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import Synchronization
import Testing

/// The real serial path: the client opens a pseudo-terminal's slave through the same descriptor I/O as a
/// real port; the virtual board runs on the master. Real time is the point here (the kernel's descriptors
/// cannot run on a test clock) and the span check allows only 40 ms of lateness, so the suite's name starts
/// with `RealTime`: `make test` runs it alone, after the others.
@Suite("Real time: board client over a pseudo-terminal")
struct RealTimePseudoTerminalTests {
  @Test func handshakeAndPlayOverTheRealDescriptorPath() async throws {
    let board = try PseudoTerminalBoard(board: VirtualBoard())
    let client = BoardClient(transport: try PseudoTerminal.openSlave(board.slavePath), clock: ContinuousClock())
    let info = try await client.connect()
    #expect(info.serial == Array("VB-0001".utf8))
    try await client.play(PlayRequest(token: 1, capMs: 0, source: .inline(shortBeep)))
    let ended = await firstEvent(client.events) { if case .event(.playEnded) = $0 { true } else { false } }
    #expect(ended == .event(.playEnded(PlayEndedEvent(token: 1, reason: .completed, playedMs: 40))))
    // In real time the board wakes when the host's scheduler lets it: the span may run a few ms long
    // (exact timing is tested in virtual time); it may never be short.
    let spans = await board.runner.withBoard { $0.timeline.alertSpans.map { ($0.end ?? 0) - $0.start } }
    #expect(spans.count == 1)
    #expect(spans.allSatisfy { (40...80).contains($0) })
    await client.close()
    await board.stop()
  }

  @Test func unplugAndReplugReconnectsToTheSameBoardAndReports() async throws {
    let first = try PseudoTerminalBoard(board: VirtualBoard())
    // The board comes back on a new pseudo-terminal, as a replugged USB device gets a new node.
    let replugged = Mutex<PseudoTerminalBoard?>(nil)
    let options = BoardClientOptions(
      reconnect: .init(initialDelay: .milliseconds(20), maxDelay: .milliseconds(100), giveUpAfter: .seconds(20)) {
        guard let path = replugged.withLock({ $0?.slavePath }) else {
          throw SerialPortError(code: .noSuchPort, port: "replugged board")
        }
        return try PseudoTerminal.openSlave(path)
      })
    let client = BoardClient(
      transport: try PseudoTerminal.openSlave(first.slavePath), clock: ContinuousClock(), options: options)
    try await client.connect()
    await first.stop()
    let disconnected = await firstEvent(client.events) { if case .disconnected = $0 { true } else { false } }
    #expect(disconnected != nil)
    await #expect(throws: BoardClientError.self) { try await client.send(.ping([])) }
    // Plug in again: the same board (same serial number) on a new pseudo-terminal, freshly powered.
    let second = try PseudoTerminalBoard(board: VirtualBoard(seed: 2))
    replugged.withLock { $0 = second }
    let back = await firstEvent(client.events) { if case .reconnected = $0 { true } else { false } }
    guard case .reconnected(let info, let status)? = back else {
      Issue.record("no reconnect reported")
      return
    }
    #expect(info.serial == Array("VB-0001".utf8))
    #expect(status.token == 0)
    #expect(try await client.send(.ping([1])) == .pong([1]))
    await client.close()
    await second.stop()
  }
}
