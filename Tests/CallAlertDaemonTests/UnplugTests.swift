import CallAlertDaemon
import CallAlertEngine
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import Dispatch
import Foundation
import Logging
import Synchronization
import SystemPackage
import Testing

/// The cable is pulled while a call rings and the caller hangs up before it is plugged in again.
@Suite("Unplug and replug", .timeLimit(.minutes(1)))
struct UnplugTests {
  /// The host's end of the cable: each connection opens the pseudo-terminal afresh; unplugging closes it.
  final class Cable: Sendable {
    private let current = Mutex<DescriptorChannel?>(nil)
    let path: String

    init(path: String) { self.path = path }

    func plugIn() throws -> any ByteTransport {
      let channel = try SerialPort.open(path)
      current.withLock { $0 = channel }
      return channel
    }

    func unplug() { current.withLock { $0 }?.close() }
  }

  /// Without a STOP on replug, the board rang on until its lease lapsed: at least 2 s after the unplug (the
  /// lease is 3 s, renewed every second). With it, the board falls silent as soon as the daemon is back.
  @Test func aCallHungUpWhileUnpluggedIsSilencedOnReplugNotAtTheLease() async throws {
    let board = try PseudoTerminalBoard()
    // Keep a slave descriptor open, so that the board's end sees no hang-up while the cable is out.
    let keepAlive = try PseudoTerminal.holdOpen(slavePath: board.slavePath)
    defer { try? keepAlive.close() }
    let cable = Cable(path: board.slavePath)
    let service = AlertService(
      configuration: EngineConfiguration(boards: [AlertBoard(name: "desk")], defaultPattern: .named("DE")),
      connectors: ["desk": { try cable.plugIn() }], clock: ContinuousClock(), logger: Logger(label: "test"))
    let running = Task { await service.run() }

    await service.submit(.call(IncomingCall(id: "c1")))
    #expect(await board.waitUntil(playing: true))

    let unpluggedAt = await board.runner.nowMs
    cable.unplug()
    await service.submit(.hangup(callID: "c1"))
    #expect(await board.waitUntil(playing: false))
    let silentAfterMs = await board.runner.nowMs - unpluggedAt
    #expect(silentAfterMs < 1_500, "silent \(silentAfterMs) ms after the unplug")
    #expect(await service.snapshot().activeCalls.isEmpty)

    running.cancel()
    _ = await running.value
    await board.stop()
  }
}

/// The order the service applies the engine's effects in.
@Suite("Effect order", .timeLimit(.minutes(1)))
struct EffectOrderTests {
  /// The history is written after the board was told: a recorder that takes its time (a slow disk) must
  /// not delay the ring. Here the recorder of the `ringing` event waits until the board rings; had the
  /// service recorded before it enqueued the PLAY, it would wait its full 5 s for nothing.
  /// (The recorder blocks its thread while it waits: with a single cooperative thread nothing else could run,
  /// so the test needs two processors.)
  @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount > 1, "needs two cooperative threads"))
  func theBoardIsToldBeforeTheHistoryIsWritten() async throws {
    let board = try PseudoTerminalBoard()
    let rang = DispatchSemaphore(value: 0)
    let observer = Task {
      if await board.waitUntil(playing: true) { rang.signal() }
    }
    let recordedAfterRing = Mutex<Bool?>(nil)
    let path = board.slavePath
    let service = AlertService(
      configuration: EngineConfiguration(boards: [AlertBoard(name: "desk")], defaultPattern: .named("DE")),
      connectors: ["desk": { try SerialPort.open(path) }], clock: ContinuousClock(), logger: Logger(label: "test"),
      recorder: { event, _ in
        guard case .ringing(_, let boards, _, _, _) = event, !boards.isEmpty else { return }
        let signalled = rang.wait(timeout: .now() + 5) == .success
        recordedAfterRing.withLock { $0 = signalled }
      })
    let running = Task { await service.run() }
    // Submitted at once: the call waits for the board, and when it connects the engine's effects are a
    // `ringing` event naming it and the PLAY, in that order.
    await service.submit(.call(IncomingCall(id: "c1")))
    _ = await observer.value
    #expect(await service.snapshot().activeCalls.count == 1)
    #expect(recordedAfterRing.withLock { $0 } == true, "the board rang while the history write waited")
    running.cancel()
    _ = await running.value
    await board.stop()
  }
}
