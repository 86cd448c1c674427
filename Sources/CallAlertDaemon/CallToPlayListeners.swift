import Synchronization

/// Who is told how long a call took from reaching the daemon to its first PLAY acknowledged by a board
/// (`/metrics`'s `callalert_call_to_play_seconds`). A class held by the service and its drivers, so that a
/// driver tells the listeners from its own actor, synchronously, without a hop back to the service.
final class CallToPlayListeners: Sendable {
  /// A listener: the board that acknowledged the PLAY, and the time since the call arrived.
  typealias Listener = @Sendable (_ board: String, _ latency: Duration) -> Void

  private let listeners = Mutex<[Listener]>([])

  /// Adds a listener; it is called from the board drivers' actors, and must not block.
  func add(_ listener: @escaping Listener) { listeners.withLock { $0.append(listener) } }

  /// Tells every listener that `board` played a call `latency` after it arrived.
  func report(board: String, latency: Duration) {
    for listener in listeners.withLock({ $0 }) { listener(board, latency) }
  }
}
