import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import CallAlertSerial
import CallAlertVirtualBoard

/// A virtual board running in real time at the far end of an in-memory pair, and a client at this end.
struct LoopbackRig {
  let runner: VirtualBoardRunner<ContinuousClock>
  let client: BoardClient<ContinuousClock>
  let run: Task<Void, any Error>

  init(
    board: sending VirtualBoard = VirtualBoard(), options: BoardClientOptions = BoardClientOptions(),
    shaped: FaultProfile? = nil, seed: UInt64 = 1
  ) {
    let (hostEnd, boardEnd) = MemoryTransport.pair()
    let boardSide: any ByteTransport =
      shaped.map {
        ShapedTransport(wrapping: boardEnd, pacing: .instant, faults: $0, seed: seed, clock: ContinuousClock())
      } ?? boardEnd
    let runner = VirtualBoardRunner(board: board, transport: boardSide, clock: ContinuousClock())
    self.runner = runner
    client = BoardClient(transport: hostEnd, clock: ContinuousClock(), options: options)
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
  await withTaskGroup(of: BoardClientEvent?.self) { group in
    group.addTask {
      for await event in events where predicate(event) { return event }
      return nil
    }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}

let shortBeep = Pattern(steps: [PatternStep(durationMs: 40, buzzerHz: 2_000, buzzerVolume: 90, motor: 100)])
