import CallAlertHistory
import Logging
import Synchronization

/// A history that cannot be written: degraded, tried again with a backoff on the injected clock, whole again
/// once what waited is written.
extension HistoryWriter {
  /// After everything waiting was written: a degraded history is whole again, and says so.
  func recovered() {
    let (recovered, announce) = state.withLock { state -> (Bool, Bool) in
      defer { state.announce = false }
      guard state.problem != nil else { return (false, state.announce) }
      state.problem = nil
      state.retryDelay = Self.firstRetryDelay
      return (true, state.announce)
    }
    if recovered { logger.notice("history: \(path ?? ":memory:") is written again; every waiting record is on disk") }
    if recovered || announce { onChange(health) }
    // A history that opened late: the missed calls of earlier runs blink now.
    if recovered, let restore = state.withLock(\.restore), let missed = takeMissedToRestore(), !missed.isEmpty {
      Task { await restore(missed) }
    }
  }

  /// The history cannot be written now: the records wait in memory, intake no longer waits for room, the
  /// disk is tried again later; the first failure is logged and published.
  func degrade(_ error: CallHistoryError) {
    let (first, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
      defer {
        state.problem = error
        state.waiters = []
      }
      return (state.problem == nil, state.waiters)
    }
    // The records wait in memory now: intake does not wait for a disk that may not come back.
    for waiter in waiters { waiter.resume() }
    scheduleRetry()
    if first {
      logger.error(
        "history degraded: \(error); the calls still ring, their records wait in memory and are retried"
      )
      onChange(health)
    } else {
      logger.debug("history: still cannot write: \(error)")
    }
  }

  private func scheduleRetry() {
    let delay = state.withLock { state -> Duration? in
      guard state.retry == nil, !state.stopped else { return nil }
      let delay = state.retryDelay
      state.retryDelay = min(delay * 2, Self.longestRetryDelay)
      return delay
    }
    guard let delay else { return }
    // Made by the thread that holds the work lock, so the retry (which takes it) cannot run before it is stored.
    let task = makeTimer(delay, nil) { [weak self] in
      guard let self else { return }
      self.busy.async {
        self.state.withLock { $0.retry = nil }
        self.exclusively { self.flush() }
      }
    }
    state.withLock { $0.retry = task }
  }

  /// Calls `fire` at `first` from now, then every `every`. The deadlines are fixed when this is called, not
  /// when the task gets to sleep, so a test clock advanced in between still wakes it.
  static func timer<C: Clock<Duration>>(
    _ clock: C, first: Duration, every: Duration?, fire: @escaping @Sendable () -> Void
  ) -> Task<Void, Never> {
    let start = clock.now.advanced(by: first)
    return Task {
      var deadline = start
      while true {
        do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
        fire()
        guard let every else { return }
        deadline = deadline.advanced(by: every)
      }
    }
  }
}
