import CallAlertSerial
import CallAlertTransport
import CallAlertVirtualBoard
import Synchronization
import SystemPackage

/// A virtual board in real time behind a pseudo-terminal: the host opens ``slavePath`` as it would a USB
/// serial port. The board's actuator changes and playback are observable as streams.
///
/// The board holds a descriptor of its own slave for its whole life (``PseudoTerminal/holdOpen(slavePath:)``),
/// as a real board stays up when a host closes its port. Without it, the first host to close the slave hung
/// the master up and the board was gone, path and all. In a parallel test run that host need not be this
/// test's: a daemon of another test, still reconnecting to its own board's pseudo-terminal number after that
/// board stopped, could open a newer board that got the same number, and close it (a fresh-clone run saw a
/// daemon find its board's `/dev/pts/2` gone a second after the test made it).
public final class PseudoTerminalBoard: Sendable {
  /// The board's runner, to look at the board (`withBoard`) or its clock (`nowMs`).
  public let runner: VirtualBoardRunner<ContinuousClock>
  /// The path a host opens.
  public let slavePath: String
  /// Each actuator change (one consumer).
  public let changes: AsyncStream<ActuatorTimeline.Entry>
  /// The playing token at each change; nil when nothing plays (one consumer).
  public let playback: AsyncStream<UInt32?>
  private let task: Task<Void, any Error>
  /// The board's own slave descriptor, until ``stop()`` closes it (once).
  private let keepAlive: Mutex<FileDescriptor?>

  /// Opens a pseudo-terminal and starts `board` on its master end.
  public init(board: sending VirtualBoard = VirtualBoard()) throws {
    let (master, slavePath) = try PseudoTerminal.open()
    let channel = try DescriptorChannel(taking: master, name: slavePath)
    do {
      keepAlive = Mutex(try PseudoTerminal.holdOpen(slavePath: slavePath))
    } catch {
      channel.close()
      throw error
    }
    let (changes, sink) = AsyncStream.makeStream(of: ActuatorTimeline.Entry.self)
    board.hardware.onChange = { sink.yield($0) }
    self.changes = changes
    let (playback, playing) = AsyncStream.makeStream(of: UInt32?.self)
    board.onPlaybackChange = { playing.yield($0) }
    self.playback = playback
    let runner = VirtualBoardRunner(board: board, transport: channel, clock: ContinuousClock())
    self.runner = runner
    self.slavePath = slavePath
    task = Task { try await runner.run() }
  }

  /// Waits until something plays (`true`) or nothing does (`false`); false when the board stopped first.
  public func waitUntil(playing: Bool) async -> Bool {
    for await token in playback where (token != nil) == playing { return true }
    return false
  }

  /// Stops the board and waits for its runner to end; then lets go of its own slave descriptor.
  public func stop() async {
    await runner.stop()
    _ = await task.result
    let slave = keepAlive.withLock { held in
      defer { held = nil }
      return held
    }
    try? slave?.close()
  }
}
