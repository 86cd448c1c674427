import Logging
import Synchronization

/// Back-pressure: the sources wait for the history, rather than the history dropping what they send.
extension HistoryWriter {
  /// Whether intake should wait now: the history is healthy and ``intakeLimit`` writes or more wait. A lock
  /// and a comparison, for the path of every request.
  var isBehind: Bool {
    state.withLock { $0.problem == nil && !$0.stopped && $0.pending.count >= Self.intakeLimit }
  }

  /// Returns once the history has room for more records: at once while fewer than ``intakeLimit`` writes
  /// wait, else once the busy thread has brought them down to ``intakeResume``. A source calls it after each
  /// request it submitted (its call already rings: only the next request waits), so a flood slows to what the
  /// disk takes. It never waits for a history that cannot be written (degraded: the records wait in memory),
  /// for a stopped writer, or longer than the writer goes without finishing a commit (``stallLimit``, on the
  /// injected clock).
  func waitForRoom() async {
    guard isBehind else { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let registered = state.withLock { state -> (watch: Int?, write: Bool)? in
        guard state.problem == nil, !state.stopped, state.pending.count > Self.intakeResume else { return nil }
        state.waiters.append(continuation)
        defer {
          state.stallWatch = true
          state.busyQueued = true
        }
        return (state.stallWatch ? nil : state.commits, !state.busyQueued)
      }
      guard let registered else { return continuation.resume() }
      if registered.write { writeOnBusyThread() }
      if let commits = registered.watch { watchForStall(since: commits) }
    }
  }

  /// Lets the waiting sources go on once no more than ``intakeResume`` writes wait (after each commit).
  func releaseIntakeIfRoom() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard !state.waiters.isEmpty, state.pending.count <= Self.intakeResume else { return [] }
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// After ``stallLimit``: the waiting sources go on if no commit finished meanwhile (a disk that hangs), else
  /// the watch goes on while some still wait.
  private func watchForStall(since commits: Int) {
    let timer = makeTimer(Self.stallLimit, nil) { [weak self] in
      guard let self else { return }
      let (released, pending, again) = self.state.withLock {
        state -> ([CheckedContinuation<Void, Never>], Int, Int?) in
        state.stallTimer = nil
        guard !state.waiters.isEmpty, !state.stopped else {
          state.stallWatch = false
          return ([], 0, nil)
        }
        guard state.commits == commits else { return ([], 0, state.commits) }
        defer {
          state.waiters = []
          state.stallWatch = false
        }
        return (state.waiters, state.pending.count, nil)
      }
      if !released.isEmpty {
        self.logger.warning(
          "history: no commit finished for \(Self.stallLimit); the sources go on, \(pending) write(s) wait in memory")
      }
      for waiter in released { waiter.resume() }
      if let again { self.watchForStall(since: again) }
    }
    state.withLock { $0.stallTimer = timer }
  }
}
