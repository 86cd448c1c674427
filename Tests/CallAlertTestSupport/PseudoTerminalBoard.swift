import CallAlertSerial
import CallAlertTransport
import CallAlertVirtualBoard

/// A virtual board in real time behind a pseudo-terminal: the host opens ``slavePath`` as it would a USB
/// serial port. The board's actuator changes and playback are observable as streams.
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

  /// Opens a pseudo-terminal and starts `board` on its master end.
  public init(board: sending VirtualBoard = VirtualBoard()) throws {
    let (master, slavePath) = try PseudoTerminal.open()
    let channel = try DescriptorChannel(taking: master, name: slavePath)
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

  /// Stops the board and waits for its runner to end.
  public func stop() async {
    await runner.stop()
    _ = await task.result
  }
}
