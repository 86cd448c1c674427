import CallAlertControl
import CallAlertEngine
import CallAlertHistory
import Dispatch
import Logging
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The daemon's way to the call history, built so that the ringing never depends on the disk, and that a
/// healthy disk loses nothing however fast calls come.
///
/// Writes run off the Swift concurrency pool and the event loop, on two threads of the writer's own
/// (``BackgroundThread``) that take turns under one lock, in the order the records came. The quiet one is in
/// the idle scheduling class and writes the few records of an ordinary moment, within ``writeDelay``, only
/// when a core is free: a commit then never holds a core the boards' loop wants. Anything more (more than
/// ``quietLimit`` records waiting, a query, a start or a stop, a retry, the file check) runs on the busy one,
/// in the normal class: a backlog is written as fast as the disk takes it, in commits of up to
/// ``largestBatch`` records, even while other processes keep every core busy (the idle thread alone starved
/// there, and the memory queue overflowed). A call and its hangup that wait together are written as one row
/// (``CallAlertHistory/CallHistory/record(_:)``).
///
/// Back-pressure, not loss: the sources ask ``waitForRoom()`` after each request; once ``intakeLimit``
/// writes wait it returns only when the busy thread has brought them down to ``intakeResume``, so a flood
/// slows to what the disk takes. The call itself rings first: only the answer waits. While the history is
/// degraded, or a commit has not finished for ``stallLimit``, intake goes on and the records wait in memory.
///
/// When the history cannot be opened or written (a folder that cannot be made, a read-only disk, a full
/// disk, a directory at the path) the writer is *degraded*: records wait in a memory queue of at most
/// ``defaultCapacity`` writes, the disk is tried again after 1 s, 2 s, 4 s ... up to 60 s (on the injected
/// clock), and every waiting record is written, in order, once it accepts them. Beyond the capacity whole
/// calls are dropped, oldest first, and counted as lost: never the end of a call whose start is on disk,
/// which would leave it ringing there, to be closed as a false missed call. A damaged file is moved aside
/// when the history is (re)opened (see ``CallAlertHistory/CallHistory/open(path:at:)``); a file removed or
/// replaced while the daemon runs is noticed within ``defaultFileCheckInterval`` and made again with everything
/// the history held (see `HistoryWriter+File.swift`). Each change is logged and published as a
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
  /// The most records written in one commit.
  static let largestBatch = 1_024
  /// The most records the quiet thread writes; when more wait, the busy thread writes them.
  static let quietLimit = 64
  /// Intake waits once this many writes wait in memory (see ``waitForRoom()``)...
  static let intakeLimit = 4_096
  /// ... until no more than this many do.
  static let intakeResume = 1_024
  /// How long intake waits for a writer that finishes no commit at all before it goes on regardless.
  static let stallLimit: Duration = .seconds(2)
  /// How often the history's file is compared with what its path names, besides before each commit.
  static let defaultFileCheckInterval: Duration = .seconds(2)

  /// One write, in the order the daemon asked for it.
  enum Operation: Sendable {
    case record(EngineEvent, Date)
    /// Close calls left ringing: by an earlier run (at start) or by this one (at a stop).
    case closeInterrupted(Date, atStop: Bool)
    case prune(receivedBefore: Date)
  }

  struct State: Sendable {
    var store: (any CallHistoryStore)?
    var pending: [Operation] = []
    /// How many operations at the front of `pending` a commit is writing now: a drop never takes those.
    var writing = 0
    var lost = 0
    var problem: CallHistoryError?
    var movedAside: String?
    var recreated: HistoryHealth.Recreation?
    var retryDelay = HistoryWriter.firstRetryDelay
    var retry: Task<Void, Never>?
    /// The daily retention and the file check.
    var timers: [Task<Void, Never>] = []
    var stopped = false
    /// A damaged file was moved aside: published once what waited is written.
    var announce = false
    /// A timed write of the records handed in is queued on the quiet thread and has not started.
    var writeQueued = false
    /// A write is queued on the busy thread and has not started.
    var busyQueued = false
    /// Where the missed calls go once the history is read; nil once they went.
    var restore: (@Sendable ([IncomingCall]) async -> Void)?
    /// Intake waiting for room (see ``HistoryWriter/waitForRoom()``).
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Whether the stall watch of the waiters is armed.
    var stallWatch = false
    /// Commits finished since the start: the stall watch looks whether it moved.
    var commits = 0
    /// Calls whose first record was dropped from a full queue: their later records go too.
    var droppedCalls: Set<String> = []
    /// Calls whose ring is on disk and whose end is not yet: the end of such a call is never dropped.
    var ringingOnDisk: Set<String> = []
    /// The stall watch's timer, while armed.
    var stallTimer: Task<Void, Never>?
  }

  let path: String?
  private let opener: Opener
  private let keepDays: Int?
  /// Makes a timer on the injected clock: `fire` at `first` from now, then every `every`.
  let makeTimer:
    @Sendable (_ first: Duration, _ every: Duration?, _ fire: @escaping @Sendable () -> Void) -> Task<Void, Never>
  let now: @Sendable () -> Date
  let capacity: Int
  /// How long a record waits in memory before its write: see ``record(_:at:)``.
  let writeDelay: Duration
  /// How often the file is compared with its path (see ``checkFile()``); nil: only before each commit. Timed
  /// by the busy thread itself (its own wait), not the injected clock: a timer task on the concurrency pool
  /// woke two of libdispatch's threads each time, which doubled the idle daemon's wake-ups.
  let fileCheckInterval: Duration?
  let logger: Logger
  let onChange: @Sendable (HistoryHealth) -> Void
  /// Writes the few records of a quiet moment, only when a core is free.
  private let quiet = BackgroundThread(name: "history quiet", priority: .idle)
  /// Writes a backlog, answers queries, starts, stops, retries and checks the file.
  let busy = BackgroundThread(name: "history busy", priority: .normal)
  /// Held by the thread that writes or reads: one at a time.
  private let work = Mutex(())
  let state = Mutex(State())

  /// A writer over the history `opener` opens (not yet: ``start()`` opens it).
  ///
  /// - Parameters:
  ///   - path: the history's path, for `status`; nil in memory.
  ///   - keepDays: calls older than this many days are deleted at start and every day after (unacknowledged
  ///     missed calls are kept); nil keeps everything.
  ///   - clock: times the retries, the daily retention and the stall watch.
  ///   - now: the wall clock, for the retention's cut-off and the time of a stop.
  ///   - capacity: how many writes may wait in memory.
  ///   - writeDelay: how long a record waits for the records that follow it, to share their commit.
  ///   - fileCheckInterval: how often the file is compared with its path while nothing is written; nil:
  ///     only before each commit (the default here: a store an opener gives may have no file).
  ///   - onChange: called (on a writer's thread) when the health changes: degraded, whole again, a first
  ///     record lost, the file made again.
  init<C: Clock<Duration>>(
    path: String?, keepDays: Int? = nil, clock: C, now: @escaping @Sendable () -> Date = { Date() },
    capacity: Int = HistoryWriter.defaultCapacity, writeDelay: Duration = HistoryWriter.defaultWriteDelay,
    fileCheckInterval: Duration? = nil, logger: Logger,
    onChange: @escaping @Sendable (HistoryHealth) -> Void = { _ in }, opener: @escaping Opener
  ) {
    self.writeDelay = writeDelay
    self.fileCheckInterval = fileCheckInterval
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
    quiet.finish()
    busy.finish()
  }

  /// A writer for the history file at `path`: opened with ``CallAlertHistory/CallHistory/open(path:at:)``,
  /// so a damaged file is moved aside, and compared with its path every `fileCheckInterval`.
  convenience init<C: Clock<Duration>>(
    path: String, keepDays: Int?, clock: C, now: @escaping @Sendable () -> Date = { Date() },
    fileCheckInterval: Duration = HistoryWriter.defaultFileCheckInterval, logger: Logger,
    onChange: @escaping @Sendable (HistoryHealth) -> Void = { _ in }
  ) {
    self.init(
      path: path, keepDays: keepDays, clock: clock, now: now, fileCheckInterval: fileCheckInterval, logger: logger,
      onChange: onChange,
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
  /// every day), starts comparing the file with its path, and hands the missed calls nobody acknowledged to
  /// `restoreMissed`, for the engine to light again: before returning when the history opens, else as soon
  /// as it does. A history that cannot be opened leaves the writer degraded, never the daemon stopped: the
  /// records wait in memory.
  func start(restoreMissed: @escaping @Sendable ([IncomingCall]) async -> Void) async {
    let missed: [IncomingCall]? = await onBusyThread {
      self.state.withLock { $0.restore = restoreMissed }
      self.enqueue(.closeInterrupted(self.now(), atStop: false))
      self.enqueuePrune()
      self.flush()
      return self.takeMissedToRestore()
    }
    if let missed { await restoreMissed(missed) }
    var timers: [Task<Void, Never>] = []
    if keepDays != nil {
      timers.append(
        makeTimer(Self.pruneInterval, Self.pruneInterval) { [weak self] in
          guard let self else { return }
          self.enqueuePrune()
          self.scheduleWrite()
        })
    }
    state.withLock { $0.timers = timers }
    if let fileCheckInterval { checkFileLater(every: fileCheckInterval) }
  }

  /// The unacknowledged missed calls, once, when the history is whole; nil before that (or after).
  func takeMissedToRestore() -> [IncomingCall]? {
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
    await onBusyThread {
      self.enqueue(.closeInterrupted(date, atStop: true))
      self.flush()
    }
  }

  /// Tries the disk a last time (the file checked first), stops the retries, the daily retention and the
  /// file check, lets intake go on, and logs what could not be written (it is lost with the process).
  func stop() async {
    let (tasks, waiters) = state.withLock { state in
      state.stopped = true
      defer {
        state.retry = nil
        state.timers = []
        state.waiters = []
        state.stallTimer = nil
      }
      return ([state.retry, state.stallTimer] + state.timers, state.waiters)
    }
    for task in tasks { task?.cancel() }
    for waiter in waiters { waiter.resume() }
    await onBusyThread {
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
  /// together (a call and its hangup, a ring group, a burst) go out in one commit. More than ``quietLimit``
  /// waiting wake the busy thread at once. A query (``calls(missedOnly:limit:)``), ``drain()`` and ``stop()``
  /// write what waits first. `ignored` events change no row and are not queued.
  func record(_ event: EngineEvent, at date: Date) {
    if case .ignored = event { return }
    enqueue(.record(event, date))
    scheduleWrite()
  }

  /// Queues the write of what waits: on the busy thread at once when more than ``quietLimit`` wait, else on
  /// the quiet thread after ``writeDelay``.
  func scheduleWrite() {
    let timed = state.withLock { state -> Bool? in
      guard state.pending.count <= Self.quietLimit else { return nil }
      defer { state.writeQueued = true }
      return !state.writeQueued
    }
    guard let timed else { return writeOnBusyThread() }
    guard timed else { return }
    quiet.asyncAfter(writeDelay) {
      self.state.withLock { $0.writeQueued = false }
      self.exclusively { self.flushUnlessWaiting(quietly: true) }
    }
  }

  /// Queues a write on the busy thread, unless one is queued there and has not started.
  func writeOnBusyThread() {
    guard
      state.withLock({ state in
        defer { state.busyQueued = true }; return !state.busyQueued
      })
    else { return }
    busy.async {
      self.state.withLock { $0.busyQueued = false }
      self.exclusively { self.flushUnlessWaiting(quietly: false) }
    }
  }

  /// The most recent calls, after every record handed in so far, with the history's health: a degraded
  /// history is tried again at once (whatever the backoff), and what cannot be read is said.
  func calls(missedOnly: Bool, limit: Int) async -> HistoryAnswer {
    await onBusyThread {
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
    await onBusyThread {
      self.flushUnlessWaiting(quietly: false)
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
    await onBusyThread { self.flushUnlessWaiting(quietly: false) }
  }

  /// The history's health now; never waits for the disk.
  var health: HistoryHealth {
    state.withLock { state in
      HistoryHealth(
        state: state.problem == nil ? .ok : .degraded, path: path, pending: state.pending.count, lost: state.lost,
        error: state.problem?.description, movedAside: state.movedAside, recreated: state.recreated)
    }
  }

  // MARK: - On the threads

  /// Runs `body` alone: no other write or read of the history runs meanwhile.
  func exclusively<T>(_ body: () -> T) -> T {
    work.withLock { _ in body() }
  }

  private func onBusyThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      busy.async { continuation.resume(returning: self.exclusively(body)) }
    }
  }

  /// Adds `operation` to the memory queue (from any thread; the log line and the health change of a drop are
  /// handed to the busy thread).
  private func enqueue(_ operation: Operation) {
    let dropped = state.withLock { state -> (before: Int, total: Int)? in
      let before = state.lost
      Self.admit(operation, into: &state, capacity: capacity)
      guard state.lost > before else { return nil }
      return (before, state.lost)
    }
    guard let dropped else { return }
    busy.async {
      if dropped.before == 0 || dropped.before / 1_000 != dropped.total / 1_000 {
        self.logger.error(
          "history: the memory queue is full (\(self.capacity) writes); the oldest call was dropped, \(dropped.total) write(s) lost so far"
        )
      }
      // The health when the thread gets here: a snapshot taken at the drop could reach watchers after a
      // newer one (a failed write publishes its own meanwhile), and `lost` would seem to go down.
      if dropped.before == 0 { self.onChange(self.health) }
    }
  }

  private func enqueuePrune() {
    guard let keepDays else { return }
    enqueue(.prune(receivedBefore: now().addingTimeInterval(-Double(keepDays) * 86_400)))
  }

  /// Writes at once when healthy; while degraded, the retry (or a query) will.
  private func flushUnlessWaiting(quietly: Bool) {
    if state.withLock({ $0.problem == nil }) { flush(quietly: quietly) }
  }

  /// Writes what waits, in order, until it is all written or the disk refuses. Consecutive records go out in
  /// one commit; when the database refuses such a batch outright (not a disk that may recover), its records
  /// are tried one by one, so that only the one it refuses is lost. Before each commit the file is compared
  /// with its path. `quietly` (the idle thread): at most ``quietLimit`` records, and a longer queue is left to
  /// the busy thread.
  func flush(quietly: Bool = false) {
    var oneByOne = 0
    while true {
      // The idle thread does not look: writes to a removed file are copied when the busy thread makes it again.
      guard openIfNeeded() != nil, quietly || checkFile() != .failed, let store = state.withLock(\.store) else {
        return
      }
      let batch = state.withLock { state -> ArraySlice<Operation>? in
        if quietly, state.pending.count > Self.quietLimit {
          return nil
        }
        let records = state.pending.prefix(oneByOne > 0 ? 1 : Self.largestBatch).prefix {
          if case .record = $0 { true } else { false }
        }
        let batch = records.isEmpty ? state.pending.prefix(1) : records
        state.writing = batch.count
        return batch
      }
      guard let batch else { return writeOnBusyThread() }  // too much for the idle thread
      guard !batch.isEmpty else { break }
      defer { state.withLock { $0.writing = 0 } }
      do throws(CallHistoryError) {
        try perform(batch, on: store)
        state.withLock { state in
          Self.noteWritten(batch, in: &state)
          state.pending.removeFirst(batch.count)
          state.commits += 1
          if state.pending.isEmpty { state.droppedCalls = [] }
        }
        releaseIntakeIfRoom()
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
          state.commits += 1
        }
        logger.error("history: the database refused a record, which is lost: \(error)")
        onChange(health)
      }
    }
    recovered()
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
}
