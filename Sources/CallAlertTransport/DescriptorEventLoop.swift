import CCallAlertEpoll
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One thread, blocked in epoll_wait(2), that tells descriptor channels (and other descriptor owners, through
/// ``DescriptorWatch``) when their descriptors are ready, and runs the daemon's actors and tasks as their
/// executor.
///
/// Why not dispatch sources: libdispatch on Linux keeps one epoll registration per descriptor number for all
/// its sources, re-arms it after each event on a worker thread, and unregisters a cancelled source some time
/// after `cancel()` returns. A channel that closed its descriptor in the cancel handler still crashed now and
/// then inside `_dispatch_event_loop_drain` under load (the stress test and the latency benchmark saw it),
/// and every read went epoll thread -> worker -> channel queue. Here the owner holds its registration: it adds
/// it, changes it, and deletes it before close(2). Events name a registration by a number that is never
/// reused, not by its descriptor, so an event that was already on its way when the owner closed finds nobody
/// and is dropped, even if the descriptor's number now belongs to someone else.
///
/// Why it is an executor too: a request used to cross threads a dozen times on its way from a socket to a
/// board (this thread, a Dispatch queue, the concurrency pool, an actor, back), and on a small machine those
/// hand-offs, not the work, were most of its cost. Actors that declare this loop as their executor
/// (`unownedExecutor`), and tasks that prefer it (`withTaskExecutorPreference`, `Task(executorPreference:)`),
/// run here, between epoll_wait calls, so that a byte read here resumes its reader on the same thread, with
/// no wake-up of another. Work handed in from another thread rings a doorbell (an eventfd the loop watches)
/// only when the loop sleeps. What runs here must not block: no blocking system call, no waiting for another
/// thread that may be waiting for this one. Files and databases stay on queues of their own.
///
/// The thread sleeps in epoll_wait with no timeout: idle descriptors cost no wake-ups at all.
public final class DescriptorEventLoop: SerialExecutor, TaskExecutor, Sendable {
  /// The loop the whole process shares; its thread starts when it is first used.
  public static let shared = DescriptorEventLoop(name: "callalert loop")

  /// What a registration does with the events reported for it, on the loop's thread. It must not block.
  typealias Handler = @Sendable (DescriptorEvents) -> Void

  private let epoll: CInt
  private let doorbell: CInt
  private let handlers = Mutex<[UInt64: Handler]>([:])
  private let lastID = Atomic<UInt64>(0)
  private let work = Mutex(Work())
  /// The thread's name.
  private let threadName: String
  /// The loop's thread (pthread_t), for ``isCurrent``.
  private let thread = Atomic<UInt>(0)
  /// Whether channels of this loop send what ``DescriptorChannel/sendWithoutWaiting(_:)`` hands over on the
  /// loop's thread at the end of the loop's turn (see ``init(name:coalescingSends:)``).
  public let coalescesSends: Bool
  /// Work for the end of the current turn (``atEndOfTurn(_:)``); touched on the loop's thread only.
  nonisolated(unsafe) private var turnEnd: [@Sendable () -> Void] = []

  /// Work handed to the loop, in order.
  private struct Work {
    var items: [Item] = []
    /// The loop is in (or about to enter) epoll_wait with no timeout: a new item must ring the doorbell.
    var sleeping = false
  }

  private enum Item {
    case job(UnownedJob)
    case closure(@Sendable () -> Void)
  }

  /// The registration number of the doorbell; ``makeID()`` never gives it out.
  private static let doorbellID: UInt64 = 0

  /// Starts another loop on a thread of its own. The daemon uses ``shared`` alone; a second loop serves
  /// what must not share the daemon's thread, such as the bench's virtual boards, which stand for hardware
  /// that computes beside the host, not on its thread.
  ///
  /// - Parameters:
  ///   - name: the thread's name (Linux keeps 15 bytes), for `top -H`, perf and the bench's counts.
  ///   - coalescingSends: bytes that a channel of this loop hands over with
  ///     ``DescriptorChannel/sendWithoutWaiting(_:)`` on the loop's thread go out when the loop ends its turn,
  ///     one write per channel, instead of at once. For a loop that stands for many peers, each answering what
  ///     it read: the bench's 32 virtual boards share one thread where 32 real boards would each have a
  ///     processor, and a write to a pseudo-terminal (with the kernel worker it wakes) cost each board's
  ///     answer as much as the board's work, so the 32nd board heard its PLAY after 31 answers had gone out.
  ///     Now the loop handles everything ready first. The daemon's loop sends at once: there, one board's
  ///     frame must not wait for another's.
  public init(name: String = "callalert loop", coalescingSends: Bool = false) {
    coalescesSends = coalescingSends
    epoll = callalert_epoll_create()
    precondition(epoll >= 0, "epoll_create1 failed, errno \(errno)")  // only without memory or descriptors
    doorbell = callalert_doorbell_create()
    precondition(doorbell >= 0, "eventfd failed, errno \(errno)")
    let added = callalert_epoll_control(
      epoll, CInt(CALLALERT_EPOLL_ADD), doorbell, UInt32(CALLALERT_EPOLL_IN), Self.doorbellID)
    precondition(added == 0, "epoll_ctl of the doorbell failed, errno \(errno)")
    threadName = String(name.utf8.prefix(15))!
    let box = Unmanaged.passRetained(self)
    var thread = pthread_t()
    let created = pthread_create(
      &thread, nil,
      { argument in
        let loop = Unmanaged<DescriptorEventLoop>.fromOpaque(argument!).takeRetainedValue()
        loop.run()
        return nil
      }, box.toOpaque())
    precondition(created == 0, "pthread_create failed: \(created)")
    pthread_detach(thread)
  }

  // MARK: - The executor

  /// Takes a job of an actor or task that runs here.
  public func enqueue(_ job: consuming ExecutorJob) {
    hand(.job(UnownedJob(job)))
  }

  /// Runs `work` on the loop's thread, after what was handed in before it.
  public func execute(_ work: @escaping @Sendable () -> Void) {
    hand(.closure(work))
  }

  /// Runs `work` now when called on the loop's thread, else hands it in (``execute(_:)``): for state
  /// confined to the loop, which is safe to touch from the loop at any point between two pieces of work.
  public func perform(_ work: @escaping @Sendable () -> Void) {
    if isCurrent { work() } else { execute(work) }
  }

  /// Whether the caller runs on the loop's thread.
  public var isCurrent: Bool {
    pthread_equal(pthread_self(), pthread_t(thread.load(ordering: .acquiring))) != 0
  }

  /// The loop as the executor of the actors that declare it.
  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  /// The loop as the executor of the tasks that prefer it.
  public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
    UnownedTaskExecutor(ordinary: self)
  }

  /// Whether `other` is this loop (there is one per process).
  public func isSameExclusiveExecutionContext(other: DescriptorEventLoop) -> Bool { other === self }

  /// Stops the process unless called on the loop's thread (for `assumeIsolated` on the loop's actors).
  public func checkIsolated() {
    precondition(isCurrent, "not on the CallAlert event loop's thread")
  }

  /// Runs `work` at the end of the loop's current turn: after the work handed in so far (and the work that
  /// hands in), before the loop polls its descriptors again. Call it on the loop's thread.
  func atEndOfTurn(_ work: @escaping @Sendable () -> Void) {
    precondition(isCurrent, "atEndOfTurn off the event loop's thread")
    turnEnd.append(work)
  }

  private func hand(_ item: Item) {
    let ring = work.withLock { work in
      work.items.append(item)
      defer { work.sleeping = false }
      return work.sleeping
    }
    if ring { callalert_doorbell_ring(doorbell) }
  }

  // MARK: - Registrations

  /// A number for a new registration, never given out twice.
  func makeID() -> UInt64 {
    lastID.wrappingAdd(1, ordering: .relaxed).newValue
  }
  /// Starts watching `descriptor` for `interest`; the loop holds `handler` (and what it captures) until
  /// ``remove(_:descriptor:)``.
  func add(id: UInt64, descriptor: FileDescriptor, interest: Interest, handler: @escaping Handler) throws(Errno) {
    handlers.withLock { $0[id] = handler }
    do throws(Errno) {
      try control(CInt(CALLALERT_EPOLL_ADD), id: id, descriptor: descriptor, interest: interest)
    } catch {
      _ = handlers.withLock { $0.removeValue(forKey: id) }
      throw error
    }
  }

  /// Changes what `descriptor` is watched for (and, for a one-shot registration, arms it again).
  func modify(id: UInt64, descriptor: FileDescriptor, interest: Interest) throws(Errno) {
    try control(CInt(CALLALERT_EPOLL_MOD), id: id, descriptor: descriptor, interest: interest)
  }

  /// Stops watching `descriptor` and lets the handler go. The caller closes the descriptor afterwards; no
  /// event reaches the handler once this returned, except one the loop's thread was already handing over.
  func remove(_ id: UInt64, descriptor: FileDescriptor) {
    // Errors are ignored: the registration is gone either way once the descriptor is closed.
    _ = callalert_epoll_control(epoll, CInt(CALLALERT_EPOLL_DEL), descriptor.rawValue, 0, id)
    _ = handlers.withLock { $0.removeValue(forKey: id) }
  }

  /// What a registration waits for.
  struct Interest {
    var readable: Bool
    var writable: Bool
    /// Reported once, then disabled until modified again (EPOLLONESHOT).
    var once = false
  }

  private func control(_ operation: CInt, id: UInt64, descriptor: FileDescriptor, interest: Interest) throws(Errno) {
    var events: UInt32 = 0
    if interest.readable { events |= UInt32(CALLALERT_EPOLL_IN) }
    if interest.writable { events |= UInt32(CALLALERT_EPOLL_OUT) }
    if interest.once { events |= UInt32(CALLALERT_EPOLL_ONESHOT) }
    guard callalert_epoll_control(epoll, operation, descriptor.rawValue, events, id) == 0 else {
      throw Errno(rawValue: errno)
    }
  }

  private func run() {
    thread.store(UInt(pthread_self()), ordering: .releasing)
    callalert_name_this_thread(threadName)
    let capacity = 64
    let events = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
    let ids = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
    var batch: [Item] = []
    while true {
      // Sleep only when no work waits; from here on, work handed in rings the doorbell.
      let timeout: CInt = work.withLock { work in
        if work.items.isEmpty {
          work.sleeping = true
          return -1
        }
        return 0
      }
      let count = callalert_epoll_wait(epoll, events, ids, CInt(capacity), timeout)
      if timeout < 0 { work.withLock { $0.sleeping = false } }
      if count < 0 {
        precondition(errno == EINTR, "epoll_wait failed, errno \(errno)")
        continue
      }
      for index in 0..<Int(count) {
        if ids[index] == Self.doorbellID {
          callalert_doorbell_clear(doorbell)
          continue
        }
        // Looked up now, not remembered: a registration removed since epoll_wait returned is simply gone.
        guard let handler = handlers.withLock({ $0[ids[index]] }) else { continue }
        handler(DescriptorEvents(rawValue: events[index]))
      }
      runHandedWork(&batch)
      while !turnEnd.isEmpty {
        let ending = turnEnd
        turnEnd.removeAll(keepingCapacity: true)
        for work in ending { work() }
      }
    }
  }

  /// Runs the work handed in so far, and what that work hands in, up to a bound: descriptors are polled
  /// again at least every 256 pieces of work, so a busy actor cannot starve them. `batch` is the loop's own
  /// array, swapped with the shared one so that neither is reallocated.
  private func runHandedWork(_ batch: inout [Item]) {
    var budget = 256
    while budget > 0 {
      work.withLock { swap(&$0.items, &batch) }
      if batch.isEmpty { return }
      budget -= batch.count
      for item in batch {
        switch item {
        case .job(let job):
          job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        case .closure(let closure):
          closure()
        }
      }
      batch.removeAll(keepingCapacity: true)
    }
  }
}

/// What epoll reported for a descriptor.
public struct DescriptorEvents: Sendable {
  let rawValue: UInt32

  /// Bytes to read, or the end of the input (a read then says which).
  public var readable: Bool { rawValue & UInt32(CALLALERT_EPOLL_IN) != 0 }
  /// Room to write.
  public var writable: Bool { rawValue & UInt32(CALLALERT_EPOLL_OUT) != 0 }
  /// The other side hung up, or the descriptor has an error pending: a read or write will say which.
  public var hungUp: Bool { rawValue & UInt32(CALLALERT_EPOLL_HUP | CALLALERT_EPOLL_ERR) != 0 }
}
