import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import Synchronization

/// A virtual board at the far end of an in-memory pair, and a client at this end, both on `clock`: in real
/// time (``init(board:options:shaped:seed:)``), or on a `TestClock` where a test is about timing.
struct LoopbackRig<C: Clock & Sendable> where C.Duration == Duration {
  let runner: VirtualBoardRunner<C>
  let client: BoardClient<C>
  let run: Task<Void, any Error>

  init(
    clock: C, board: sending VirtualBoard = VirtualBoard(), options: BoardClientOptions = BoardClientOptions(),
    shaped: FaultProfile? = nil, seed: UInt64 = 1
  ) {
    let (hostEnd, boardEnd) = MemoryTransport.pair()
    let boardSide: any ByteTransport =
      shaped.map {
        ShapedTransport(wrapping: boardEnd, pacing: .instant, faults: $0, seed: seed, clock: clock)
      } ?? boardEnd
    let runner = VirtualBoardRunner(board: board, transport: boardSide, clock: clock)
    self.runner = runner
    client = BoardClient(transport: hostEnd, clock: clock, options: options)
    run = Task { try await runner.run() }
  }

  func shutDown() async {
    await client.close()
    await runner.stop()
    _ = await run.result
  }
}

/// Waits for the first event that matches, with a generous guard so a broken build fails instead of hanging.
func firstEvent(
  _ events: AsyncStream<BoardClientEvent>, within seconds: Double = 10,
  where predicate: @escaping @Sendable (BoardClientEvent) -> Bool
) async -> BoardClientEvent? {
  await firstElement(of: events, within: seconds, where: predicate)
}

let shortBeep = Pattern(steps: [PatternStep(durationMs: 40, buzzerHz: 2_000, buzzerVolume: 90, motor: 100)])

/// A host-side transport whose writes can be swallowed, as if the cable went deaf one way: the board
/// stops hearing the host while the port stays open.
final class MutableLine: ByteTransport, Sendable {
  let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let inner: any ByteTransport
  private let state = Mutex((muted: false, untilHello: false))

  init(wrapping inner: any ByteTransport) {
    self.inner = inner
    incoming = inner.incoming
  }

  func mute(_ on: Bool) { state.withLock { $0 = (on, false) } }

  /// Swallows writes until the host sends a HELLO (an outage that lasts until the host re-synchronises).
  func muteUntilHello() { state.withLock { $0 = (true, true) } }

  func write(_ bytes: [UInt8]) async throws {
    let pass = state.withLock { state in
      guard state.muted else { return true }
      guard state.untilHello, Self.containsHello(bytes) else { return false }
      state = (false, false)
      return true
    }
    if pass { try await inner.write(bytes) }
  }

  private static func containsHello(_ bytes: [UInt8]) -> Bool {
    var decoder = FrameDecoder()
    return decoder.feed(bytes).contains {
      if case .frame(let frame) = $0 { frame.type == MessageType.hello.rawValue } else { false }
    }
  }

  func close() { inner.close() }
}
