import CallAlertControl
import CallAlertEngine
import CallAlertHistory
import Dispatch
import Foundation
import Logging
import Synchronization

/// The daemon's way to the call history, built so that the ringing never depends on the disk.
///
/// Writes run on a thread of their own (``BackgroundThread``, at a lower priority), off the Swift concurrency
/// pool and the event loop: a SQLite commit waits for the disk (WAL with fsync) and takes CPU, and neither
/// may hold up the engine or, on a small machine, the board commands. Records keep their order, and a query
/// runs after every record handed in before it.
///
/// When the history cannot be opened or written (a folder that cannot be made, a read-only disk, a full
/// disk, a directory at the path) the writer is *degraded*: records wait in a memory queue of at most
/// ``defaultCapacity`` writes (beyond it the oldest is dropped and counted as lost), the disk is tried
/// again after 1 s, 2 s, 4 s ... up to 60 s (on the injected clock), and every waiting record is written,
/// in order, once it accepts them. A damaged file is moved aside when the history is (re)opened (see
/// ``CallAlertHistory/CallHistory/open(path:at:)``). Each change is logged and published as a
/// ``HistoryHealth``; `status` shows the current one.
final class HistoryWriter: Sendable {
  /// A history opened, with what opening it did (lines for the log, a damaged file moved aside).
  struct Opened: Sendable {
    var store: any CallHistoryStore
    var notes: [String] = []
    var movedAside: String? = nil
  }
  /// Opens the history; called at start and again after a failure.
  typealias Opener = @Sendable () throws(CallHistoryError) -> Opened

  /// At most this many writes wait in memory while the disk refuses them: at a few hundred bytes each,
  /// a few MB at most, and more calls than a person gets in months.
  static let defaultCapacity = 10_000
  /// The first wait before the disk is tried again; doubled after each failure, up to ``longestRetryDelay``.
  static let firstRetryDelay: Duration = .seconds(1)
  /// The longest wait between two tries.
  static let longestRetryDelay: Duration = .seconds(60)
  /// How long a record may wait in memory for the records that follow it, to share their commit.
  static let defaultWriteDelay: Duration = .milliseconds(50)
  /// How often the retention is applied after start.
  static let pruneInterval: Duration = .seconds(86_400)

  /// One write, in the order the daemon asked for it.
  enum Operation: Sendable {
    case record(EngineEvent, Date)
    /// Close calls left ringing: by an earlier run (at start) or by this one (at a stop).
    case closeInterrupted(Date, atStop: Bool)
    case prune(receivedBefore: Date)
  }

  private struct State: Sendable {
    var store: (any CallHistoryStore)?
    var pending: [Operation] = []
    /// How many operations at the front of `pending` a commit is writing now: a drop never takes those.
    var writing = 0
    var lost = 0
    var problem: CallHistoryError?
    var movedAside: String?
    var retryDelay = HistoryWriter.firstRetryDelay
    var retry: Task<Void, Never>?
    var pruning: Task<Void, Never>?
    var stopped = false
    /// A damaged file was moved aside: published once what waited is written.
    var announce = false
    /// A write of the records handed in is queued (behind them) and has not started.
    var writeQueued = false
    /// Where the missed calls go once the history is read; nil once they went.
    var restore: (@Sendable ([IncomingCall]) async -> Void)?
  }

  private let path: String?
  private let opener: Opener
  private let keepDays: Int?
  /// Makes a timer on the injected clock: `fire` at `first` from now, then every `every`.
  private let makeTimer:
    @Sendable (_ first: Duration, _ every: Duration?, _ fire: @escaping @Sendable () -> Void) -> Task<Void, Never>
  private let now: @Sendable () -> Date
  private let capacity: Int
  /// How long a record waits in memory before its write: see ``record(_:at:)``.
  let writeDelay: Duration
  private let logger: Logger
  private let onChange: @Sendable (HistoryHealth) -> Void
  /// Where every write and query runs, in order: a thread of the writer's own at a lower priority.
  private let thread = BackgroundThread(name: "callalert history")
  private let state = Mutex(State())

  /// A writer over the history `opener` opens (not yet: ``start()`` opens it).
  ///
  /// - Parameters:
  ///   - path: the history's path, for `status`; nil in memory.
  ///   - keepDays: calls older than this many days are deleted at start and every day after (unacknowledged
  ///     missed calls are kept); nil keeps everything.
  ///   - clock: times the retries and the daily retention.
  ///   - now: the wall clock, for the retention's cut-off and the time of a stop.
  ///   - capacity: how many writes may wait in memory.
  ///   - writeDelay: how long a record waits for the records that follow it, to share their commit.
  ///   - onChange: called (on the writer's thread) when the health changes: degraded, whole again, a first
  ///     record lost.
  init<C: Clock<Duration>>(
    path: String?, keepDays: Int? = nil, clock: C, now: @escaping @Sendable () -> Date = { Date() },
    capacity: Int = HistoryWriter.defaultCapacity, writeDelay: Duration = HistoryWriter.defaultWriteDelay,
    logger: Logger, onChange: @escaping @Sendable (HistoryHealth) -> Void = { _ in }, opener: @escaping Opener
  ) {
    self.writeDelay = writeDelay
    self.path = path
    self.opener = opener
    self.keepDays = keepDays
    self.makeTimer = { first, every, fire in Self.timer(clock, first: first, every: every, fire: fire) }
    self.now = now
    self.capacity = max(1, capacity)
    self.logger = logger
    self.onChange = onChange
  }

  deinit {
    thread.finish()
  }

  /// A writer for the history file at `path`: opened with ``CallAlertHistory/CallHistory/open(path:at:)``,
  /// so a damaged file is moved aside.
  convenience init<C: Clock<Duration>>(
    path: String, keepDays: Int?, clock: C, now: @escaping @Sendable () -> Date = { Date() },
    logger: Logger, onChange: @escaping @Sendable (HistoryHealth) -> Void = { _ in }
  ) {
    self.init(
      path: path, keepDays: keepDays, clock: clock, now: now, logger: logger, onChange: onChange,
      opener: { () throws(CallHistoryError) -> Opened in
        let opening = try CallHistory.open(path: path, at: now())
        return Opened(store: opening.history, notes: opening.notes, movedAside: opening.movedAside)
      })
  }

  /// A writer over a history already open (tests, a history in memory).
  convenience init(_ store: any CallHistoryStore, logger: Logger) {
    self.init(path: nil, clock: ContinuousClock(), logger: logger, opener: { Opened(store: store) })
  }

  // MARK: - Start and stop

  /// Opens the history, closes the calls an earlier run left ringing, applies the retention (and from now on
  /// every day), and hands the missed calls nobody acknowledged to `restoreMissed`, for the engine to light
  /// again: before returning when the history opens, else as soon as it does. A history that cannot be
  /// opened leaves the writer degraded, never the daemon stopped: the records wait in memory.
  func start(restoreMissed: @escaping @Sendable ([IncomingCall]) async -> Void) async {
    let missed: [IncomingCall]? = await onQueue {
      self.state.withLock { $0.restore = restoreMissed }
      self.enqueue(.closeInterrupted(self.now(), atStop: false))
      self.enqueuePrune()
      self.flush()
      return self.takeMissedToRestore()
    }
    if let missed { await restoreMissed(missed) }
    if keepDays != nil {
      let task = makeTimer(Self.pruneInterval, Self.pruneInterval) { [weak self] in
        guard let self else { return }
        self.thread.async {
          self.enqueuePrune()
          self.flushUnlessWaiting()
        }
      }
      state.withLock { $0.pruning = task }
    }
  }

  /// The unacknowledged missed calls, once, when the history is whole; nil before that (or after).
  private func takeMissedToRestore() -> [IncomingCall]? {
    guard let store = state.withLock({ $0.problem == nil && $0.restore != nil ? $0.store : nil }) else { return nil }
    state.withLock { $0.restore = nil }
    do throws(CallHistoryError) {
      return try store.unacknowledgedMissed()
    } catch {
      logger.error("history: cannot read the missed calls to restore: \(error)")
      return nil
    }
  }

  /// Closes the calls still ringing (the boards went quiet at `date`) as missed, reason `interrupted`,
  /// after every record handed in before; returns once that is written or left waiting (see ``stop()``).
  func closeInterrupted(at date: Date) async {
    await onQueue {
      self.enqueue(.closeInterrupted(date, atStop: true))
      self.flush()
    }
  }

  /// Tries the disk a last time, stops the retries and the daily retention, and logs what could not be
  /// written (it is lost with the process).
  func stop() async {
    let tasks = state.withLock { state in
      state.stopped = true
      defer {
        state.retry = nil
        state.pruning = nil
      }
      return [state.retry, state.pruning]
    }
    for task in tasks { task?.cancel() }
    await onQueue {
      self.flush()
      let pending = self.state.withLock(\.pending.count)
      if pending > 0 {
        self.logger.error(
          "history: \(pending) write(s) could not be done before the daemon stopped and are lost: \(self.health.summary)"
        )
      }
    }
  }

  // MARK: - Writing and reading

  /// Records an event: written within ``writeDelay`` when the history is healthy, kept in memory while it is
  /// degraded. The record joins the memory queue at once, on the caller's thread (the event loop), which
  /// wakes no thread; the write that takes it is queued only once per window, so events that come close
  /// together (a call and its hangup, a ring group, a burst) go out in one commit. A query (``calls(missedOnly:limit:)``),
  /// ``drain()`` and ``stop()`` write what waits first.
  func record(_ event: EngineEvent, at date: Date) {
    enqueue(.record(event, date))
    let queueWrite = state.withLock { state in
      defer { state.writeQueued = true }
      return !state.writeQueued
    }
    guard queueWrite else { return }
    thread.asyncAfter(writeDelay) {
      self.state.withLock { $0.writeQueued = false }
      self.flushUnlessWaiting()
    }
  }

  /// The most recent calls, after every record handed in so far, with the history's health: a degraded
  /// history is tried again at once (whatever the backoff), and what cannot be read is said.
  func calls(missedOnly: Bool, limit: Int) async -> HistoryAnswer {
    await onQueue {
      self.flush()
      var answer = HistoryAnswer(calls: [], health: self.health)
      guard let store = self.state.withLock(\.store) else { return answer }
      do throws(CallHistoryError) {
        answer.calls = try store.calls(missedOnly: missedOnly, limit: limit)
      } catch {
        answer.readError = error
      }
      return answer
    }
  }

  /// Whether the history holds a call with this id, after every record handed in so far. False when the
  /// history cannot be read (degraded) or cannot be asked (a store without ``CallAlertHistory/CallHistoryLookup``):
  /// the call then goes to the engine, as it would without the history.
  func containsCall(id: String) async -> Bool {
    await onQueue {
      self.flushUnlessWaiting()
      guard let store = self.state.withLock({ $0.problem == nil ? $0.store : nil }),
        let lookup = store as? any CallHistoryLookup
      else { return false }
      do throws(CallHistoryError) {
        return try lookup.containsCall(id: id)
      } catch {
        self.logger.warning("history: cannot look a call up by its id: \(error)")
        return false
      }
    }
  }

  /// Returns once every record handed in so far was tried (a record's write may still be queued behind this).
  func drain() async {
    await onQueue { self.flushUnlessWaiting() }
  }

  /// The history's health now; never waits for the disk.
  var health: HistoryHealth {
    state.withLock { state in
      HistoryHealth(
        state: state.problem == nil ? .ok : .degraded, path: path, pending: state.pending.count, lost: state.lost,
        error: state.problem?.description, movedAside: state.movedAside)
    }
  }

  // MARK: - On the thread

  private func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in thread.async { continuation.resume(returning: body()) } }
  }

  /// Adds `operation` to the memory queue (from any thread; the log line and the health change of a drop are
  /// handed to the writer's thread).
  private func enqueue(_ operation: Operation) {
    let dropped = state.withLock { state -> Int? in
      var dropped: Int?
      var keep = true
      if state.pending.count >= capacity {
        // The oldest that no commit is writing now; when a commit holds them all, the new one.
        if state.writing < state.pending.count { state.pending.remove(at: state.writing) } else { keep = false }
        state.lost += 1
        dropped = state.lost
      }
      if keep { state.pending.append(operation) }
      return dropped
    }
    guard let dropped else { return }
    let firstDrop = dropped == 1 ? health : nil  // as it is now, not when the thread gets to it
    thread.async {
      if dropped == 1 || dropped % 1_000 == 0 {
        self.logger.error(
          "history: the memory queue is full (\(self.capacity) writes); the oldest was dropped, \(dropped) lost so far"
        )
      }
      if let firstDrop { self.onChange(firstDrop) }
    }
  }

  private func enqueuePrune() {
    guard let keepDays else { return }
    enqueue(.prune(receivedBefore: now().addingTimeInterval(-Double(keepDays) * 86_400)))
  }

  /// Writes at once when healthy; while degraded, the retry (or a query) will.
  private func flushUnlessWaiting() {
    if state.withLock({ $0.problem == nil }) { flush() }
  }

  /// The most records written in one commit.
  static let largestBatch = 256

  /// Writes what waits, in order, until it is all written or the disk refuses. Consecutive records go out in
  /// one commit; when the database refuses such a batch outright (not a disk that may recover), its records
  /// are tried one by one, so that only the one it refuses is lost.
  private func flush() {
    var oneByOne = 0
    while true {
      guard let store = openIfNeeded() else { return }
      let batch = state.withLock { state -> ArraySlice<Operation> in
        let records = state.pending.prefix(oneByOne > 0 ? 1 : Self.largestBatch).prefix {
          if case .record = $0 { true } else { false }
        }
        let batch = records.isEmpty ? state.pending.prefix(1) : records
        state.writing = batch.count
        return batch
      }
      guard !batch.isEmpty else { break }
      defer { state.withLock { $0.writing = 0 } }
      do throws(CallHistoryError) {
        try perform(batch, on: store)
        state.withLock { $0.pending.removeFirst(batch.count) }
        oneByOne = max(0, oneByOne - 1)
      } catch  where error.kind.isRetryable {
        // A full disk still reads, so queries keep showing what is on it; otherwise (read-only, a damaged
        // file, a failing disk) the history is reopened (and checked, a damaged file moved aside) next time.
        if error.kind != .full { state.withLock { $0.store = nil } }
        degrade(error)
        return
      } catch {
        if batch.count > 1 {
          oneByOne = batch.count  // nothing of it was written: find the record it refuses
          continue
        }
        oneByOne = max(0, oneByOne - 1)
        state.withLock { state in
          state.pending.removeFirst()
          state.lost += 1
        }
        logger.error("history: the database refused a record, which is lost: \(error)")
        onChange(health)
      }
    }
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

  private func openIfNeeded() -> (any CallHistoryStore)? {
    if let store = state.withLock(\.store) { return store }
    do throws(CallHistoryError) {
      let opened = try opener()
      state.withLock { state in
        state.store = opened.store
        if let aside = opened.movedAside {
          state.movedAside = aside
          state.announce = true
        }
      }
      for note in opened.notes { logger.warning("history: \(note)") }
      return opened.store
    } catch {
      degrade(error)
      return nil
    }
  }

  /// Writes one operation, or consecutive records in one commit.
  private func perform(_ batch: ArraySlice<Operation>, on store: any CallHistoryStore) throws(CallHistoryError) {
    guard batch.count > 1 else { return try perform(batch[batch.startIndex], on: store) }
    try store.record(
      batch.compactMap { if case .record(let event, let date) = $0 { HistoryRecord(event, at: date) } else { nil } })
  }

  private func perform(_ operation: Operation, on store: any CallHistoryStore) throws(CallHistoryError) {
    switch operation {
    case .record(let event, let date):
      try store.record(event, at: date)
    case .closeInterrupted(let date, let atStop):
      let closed = try store.closeInterrupted(at: date)
      if closed > 0 {
        logger.notice(
          atStop
            ? "history: closed \(closed) call(s) ringing at the stop as interrupted"
            : "history: closed \(closed) call(s) left ringing by an earlier run")
      }
    case .prune(let date):
      let deleted = try store.prune(receivedBefore: date)
      if deleted > 0 { logger.info("history: deleted \(deleted) call(s) older than \(keepDays ?? 0) days") }
    }
  }

  private func degrade(_ error: CallHistoryError) {
    let first = state.withLock { state -> Bool in
      defer { state.problem = error }
      return state.problem == nil
    }
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
    // Made on the queue, so the retry cannot run (on the queue) before it is stored.
    let task = makeTimer(delay, nil) { [weak self] in
      guard let self else { return }
      self.thread.async {
        self.state.withLock { $0.retry = nil }
        self.flush()
      }
    }
    state.withLock { $0.retry = task }
  }

  /// Calls `fire` at `first` from now, then every `every`. The deadlines are fixed when this is called, not
  /// when the task gets to sleep, so a test clock advanced in between still wakes it.
  private static func timer<C: Clock<Duration>>(
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
