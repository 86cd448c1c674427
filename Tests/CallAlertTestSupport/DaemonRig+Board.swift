import CallAlertVirtualBoard

extension DaemonRig {
  /// An in-process board of the rig's daemon, and what it plays as it changes.
  public final class Board: Sendable {
    /// The board's runner, to look at the board (`withBoard`), press its button or read its clock (`nowMs`).
    public let runner: VirtualBoardRunner<C>
    /// The playing token at each change; nil when nothing plays (one consumer).
    public let playback: AsyncStream<UInt32?>

    init(_ runner: VirtualBoardRunner<C>) async {
      self.runner = runner
      let (playback, playing) = AsyncStream.makeStream(of: UInt32?.self)
      self.playback = playback
      await runner.withBoard { $0.onPlaybackChange = { playing.yield($0) } }
    }
  }
}
