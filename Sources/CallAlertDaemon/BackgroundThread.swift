import CallAlertRuntime
import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A thread of its own that runs work in order, off the event loop and the concurrency pool: for work that
/// may take milliseconds of CPU or wait for the disk, such as the history's SQLite commits.
///
/// ``Priority/idle`` threads run at a lower scheduling priority than the rest of the daemon, for work that
/// must never hold up a ring: a commit at the event loop's priority delays the board frames of the requests
/// that come meanwhile. On Linux such a thread runs under `SCHED_IDLE`: it gets a core only when nothing
/// else wants it, and a thread of the normal class that wakes takes the core back at once; nice 10 does not
/// do that (the scheduler lets a thread that just woke run its slice out; docs/BENCH.md has the figures).
/// Should `SCHED_IDLE` be refused, the thread falls back to nice 10. The price: on a machine whose cores are
/// all busy with other work, an idle thread gets next to nothing, so work that must get done goes to a
/// ``Priority/normal`` thread (see ``HistoryWriter``). A thread cannot raise its own priority again without
/// privilege, hence two threads rather than one that changes class.
///
/// The thread ends once ``finish()`` was called and the work handed in before it ran (the owner calls it
/// from its `deinit`).
final class BackgroundThread: Sendable {
  /// How the thread is scheduled.
  enum Priority: Sendable {
    /// Only when nothing else wants a core (`SCHED_IDLE` on Linux, else nice 10).
    case idle
    /// As the rest of the daemon.
    case normal
  }

  /// The nice value of the thread when `SCHED_IDLE` is refused (Linux sets it per thread; elsewhere it is
  /// left alone).
  static let niceness: Int32 = 10

  #if os(Linux)
    /// `SCHED_IDLE` from <sched.h>: a GNU extension that Glibc's Swift module leaves out. The value is part of
    /// Linux's system call interface (and of `chrt --idle`).
    static let idlePolicy: CInt = 5

    /// Puts the calling thread in the idle scheduling class, or at nice 10 when that is refused.
    static func lowerThisThread() {
      var parameters = sched_param()
      parameters.sched_priority = 0
      guard sched_setscheduler(0, idlePolicy, &parameters) != 0 else { return }
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)  // 0: this thread, on Linux
    }
  #endif

  private struct State {
    var jobs: [@Sendable () -> Void] = []
    /// Work waiting for its time (nanoseconds on the monotonic uptime clock), in no order.
    var timed: [(at: UInt64, job: @Sendable () -> Void)] = []
    var finished = false
  }

  /// What the thread shares with its owner (the thread holds this, not the owner).
  private final class Shared: Sendable {
    let state = Mutex(State())
    let wakeUp = DispatchSemaphore(value: 0)
  }

  private let shared = Shared()

  /// Starts the thread, by default in the idle class.
  init(name: String, priority: Priority = .idle) {
    let shared = self.shared
    DetachedThread.start(name: name, stackSize: 1 << 20) { Self.run(shared, priority: priority) }
  }

  /// Runs `job` after the work handed in before it.
  func async(_ job: @escaping @Sendable () -> Void) {
    shared.state.withLock { $0.jobs.append(job) }
    shared.wakeUp.signal()
  }

  /// Runs `job` once `delay` has passed (after the work handed in before that moment).
  func asyncAfter(_ delay: Duration, _ job: @escaping @Sendable () -> Void) {
    let (seconds, attoseconds) = delay.components
    let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    shared.state.withLock { $0.timed.append((DispatchTime.now().uptimeNanoseconds + nanoseconds, job)) }
    shared.wakeUp.signal()
  }

  /// Ends the thread once the work handed in so far ran (timed work still waiting is dropped).
  func finish() {
    shared.state.withLock { $0.finished = true }
    shared.wakeUp.signal()
  }

  private static func run(_ shared: Shared, priority: Priority) {
    #if os(Linux)
      if priority == .idle { lowerThisThread() }
    #endif
    var jobs: [@Sendable () -> Void] = []
    while true {
      let now = DispatchTime.now().uptimeNanoseconds
      let (finished, next) = shared.state.withLock { state -> (Bool, UInt64?) in
        var index = 0
        while index < state.timed.count {
          if state.timed[index].at <= now {
            state.jobs.append(state.timed.remove(at: index).job)
          } else {
            index += 1
          }
        }
        swap(&state.jobs, &jobs)
        return (state.finished, state.timed.map(\.at).min())
      }
      for job in jobs { job() }
      if !jobs.isEmpty {
        jobs.removeAll(keepingCapacity: true)
        continue  // look again before sleeping: more may have come meanwhile
      }
      if finished { return }
      if let next {
        _ = shared.wakeUp.wait(timeout: DispatchTime(uptimeNanoseconds: next))
      } else {
        shared.wakeUp.wait()
      }
    }
  }
}
