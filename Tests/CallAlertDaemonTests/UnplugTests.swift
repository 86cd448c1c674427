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

@testable import CallAlertDaemon

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

/// The ring never waits for the history.
@Suite("Effect order", .timeLimit(.minutes(1)))
struct EffectOrderTests {
  /// A history whose disk hangs (every write blocks until the test lets it go) does not hold up the ring:
  /// the service records on the event loop by handing the event to the history's own thread, and the
  /// board's PLAY goes out while that thread waits for the disk. (The recorder is called on the loop and must
  /// not block; the earlier form of this test had a recorder that blocked until the board rang, which a loop
  /// that writes the PLAY itself can never satisfy.)
  @Test func aHistoryStuckOnItsDiskDoesNotDelayTheRing() async throws {
    let board = try PseudoTerminalBoard()
    let store = try ScriptedStore()
    let writer = HistoryWriter(
      path: nil, clock: ContinuousClock(), writeDelay: .zero, logger: Logger(label: "test"),
      opener: { .init(store: store) })
    await writer.start(restoreMissed: { _ in })
    let disk = DispatchSemaphore(value: 0)
    store.gate.withLock { $0 = disk }  // the next write waits until the disk is let go
    var writes = store.writes.makeAsyncIterator()
    let path = board.slavePath
    let service = AlertService(
      configuration: EngineConfiguration(boards: [AlertBoard(name: "desk")], defaultPattern: .named("DE")),
      connectors: ["desk": { try SerialPort.open(path) }], clock: ContinuousClock(), logger: Logger(label: "test"),
      recorder: { event, at in writer.record(event, at: at) })
    let running = Task { await service.run() }
    await service.submit(.call(IncomingCall(id: "c1")))
    let rang = await board.waitUntil(playing: true)
    #expect(rang)
    var stuck = false
    while let write = await writes.next() {
      if case .record = write {
        stuck = true  // the ringing record reached the disk, which hangs: the board rang all the same
        break
      }
    }
    #expect(stuck)
    disk.signal()
    await writer.drain()
    #expect(await service.snapshot().activeCalls.count == 1)
    running.cancel()
    _ = await running.value
    await writer.stop()
    await board.stop()
  }
}
