import CallAlertProtocol
import CallAlertRuntime
import CallAlertTransport

/// Runs a ``VirtualBoard`` in real time over a byte transport (a pseudo-terminal's master side, or an
/// in-memory pair): bytes from the host are fed as they arrive, and the board is woken exactly at its
/// next scheduled change (one long-lived `DeadlineTimer`). Nothing polls: an idle board with nothing
/// playing sleeps until bytes arrive.
///
/// The runner is an actor of an event loop (``DescriptorEventLoop``, the process's shared one unless told),
/// like the daemon's: the bytes of a pseudo-terminal are read on the loop's thread and reach the board there,
/// with no thread hand-off; a virtual board costs the host little more than its firmware core.
public actor VirtualBoardRunner<C: Clock> where C.Duration == Duration {
  /// Runs on its event loop (see above).
  public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
  /// The event loop the runner is an actor of: the process's shared one unless told.
  public nonisolated let loop: DescriptorEventLoop

  /// The board.
  public let board: VirtualBoard
  private let transport: any ByteTransport
  private let deadlines: DeadlineTimer<C>
  private let outgoing: AsyncStream<[UInt8]>.Continuation
  private let outgoingStream: AsyncStream<[UInt8]>
  /// Chunks handed to the writer task and not yet written by it.
  private let writerBacklog = WriterBacklog()

  /// Creates a runner on `loop` (give the board's transport the same loop); the board's clock reads 0 now.
  public init(
    board: sending VirtualBoard, transport: any ByteTransport, clock: C, loop: DescriptorEventLoop = .shared
  ) {
    self.board = board
    self.transport = transport
    self.loop = loop
    deadlines = DeadlineTimer(clock: clock, alarm: LoopTimer.alarm(on: clock, loop: loop))
    (outgoingStream, outgoing) = AsyncStream.makeStream(of: [UInt8].self)
  }

  /// The board's clock: milliseconds since the runner was made.
  public var nowMs: UInt64 { deadlines.nowMs }

  /// Runs until the transport ends (the host closed it, or ``stop()``); returns normally then.
  /// Throws what the transport threw, other than a hang-up. The writer and the board's wake-ups are child
  /// tasks of this call: they end with it.
  public func run() async throws {
    let transport = self.transport
    let stream = outgoingStream
    let deadlines = self.deadlines
    defer { shutDown() }
    try await withThrowingTaskGroup(of: Void.self) { group in
      let backlog = writerBacklog
      group.addTask {
        for await chunk in stream {
          defer { backlog.taken() }
          do { try await transport.write(chunk) } catch { break }
        }
      }
      group.addTask { await deadlines.run { [weak self] in await self?.tick() } }
      defer { group.cancelAll() }
      flush()
      reschedule()
      do {
        for try await chunk in transport.incoming {
          board.receive(chunk, nowMs: nowMs)
          flush()
          reschedule()
        }
      } catch let error as TransportError where error.code == .disconnected {
        return
      }
    }
  }

  /// Presses or releases the board's button now.
  public func setButton(_ index: Int = 0, down: Bool) {
    board.setButton(index, down: down, nowMs: nowMs)
    flush()
    reschedule()
  }

  /// Reboots the board now (a watchdog reset), as if its firmware restarted.
  public func reboot() {
    board.reboot(nowMs: nowMs)
    flush()
    reschedule()
  }

  /// Stops the runner: closes the transport, which ends ``run()``.
  public func stop() {
    transport.close()
  }

  /// Runs `body` with the board, on the runner's executor (to read the timeline or the actuators).
  public func withBoard<T: Sendable>(_ body: (VirtualBoard) -> T) -> T { body(board) }

  private func tick() {
    board.tick(nowMs: nowMs)
    flush()
    reschedule()
  }

  /// Sends the board's output: straight to the line when the writer task holds nothing (a descriptor channel
  /// writes it at once, or queues it behind what waits), else behind the writer task's chunks.
  private func flush() {
    let out = board.takeOutput()
    guard !out.isEmpty else { return }
    if writerBacklog.isEmpty, transport.sendWithoutWaiting(out) { return }
    writerBacklog.handed()
    outgoing.yield(out)
  }

  private func reschedule() {
    deadlines.schedule(atMs: board.nextWakeMs)
  }

  private func shutDown() {
    outgoing.finish()
    transport.close()
  }
}
