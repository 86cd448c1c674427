import CallAlertEngine
import Synchronization

/// The engine's effects for one board on their way to its driver's command worker: the ``BoardCommandQueue``
/// and the worker's wake-up call.
///
/// The engine's service hands effects over without waiting for the driver's actor (one slow board must not
/// hold up the others), so ``enqueue(_:callArrival:)`` runs off the actor: the queue is guarded by a lock,
/// not by the actor, and the worker is woken through a stream that keeps one wake-up at most.
final class BoardCommandInbox<Arrival: Sendable>: Sendable {
  private let queue = Mutex(BoardCommandQueue<Arrival>())
  private let wake: AsyncStream<Void>.Continuation
  /// One element for each burst of effects enqueued: the worker takes ``next()`` until it returns nil.
  let wakeUps: AsyncStream<Void>
  /// Counts the PLAYs queued, for the device that waits for a quiet moment.
  private let activity: BoardActivity

  init(activity: BoardActivity) {
    self.activity = activity
    (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  /// Queues an effect (see ``BoardCommandQueue`` for the PLAY a STOP overtakes) and wakes the worker.
  func enqueue(_ effect: EngineEffect, callArrival: Arrival?) {
    if case .play = effect { activity.queuedPlays(by: 1) }
    if queue.withLock({ $0.append(effect, callArrival: callArrival) }) {
      activity.queuedPlays(by: -1)  // the PLAY left the queue with its STOP
    }
    wake.yield()
  }

  /// The next effect to carry out, if any.
  func next() -> BoardCommandQueue<Arrival>.Item? { queue.withLock { $0.next() } }

  /// Ends the wake-ups: the worker's loop ends.
  func finish() { wake.finish() }
}
