import Synchronization

/// What a board is busy with, shared by its driver (which queues and plays) and its device (which may wait
/// for a quiet moment, as a serial board's table flash does): the PLAYs queued and not yet carried out, and
/// the token playing. Locked, since the driver counts queued PLAYs from any thread as effects arrive.
final class BoardActivity: Sendable {
  private struct State {
    var queuedPlays = 0
    var playingToken: UInt32?
  }

  private let state = Mutex(State())

  /// Nothing plays and no PLAY waits.
  var isIdle: Bool { state.withLock { $0.playingToken == nil && $0.queuedPlays == 0 } }

  /// The token the board plays, as far as the driver knows.
  var playingToken: UInt32? {
    get { state.withLock { $0.playingToken } }
    set { state.withLock { $0.playingToken = newValue } }
  }

  /// Counts a PLAY queued (`by` 1) or carried out or dropped (`by` -1).
  func queuedPlays(by change: Int) {
    state.withLock { $0.queuedPlays += change }
  }
}
