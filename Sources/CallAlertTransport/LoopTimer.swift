import CCallAlertEpoll
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc  // errno
#elseif canImport(Musl)
  import Musl
#endif

/// A one-shot timer of the process's event loop: a timerfd the loop watches, so that a wake-up costs one
/// system call to set and no thread of its own. `Task.sleep` on Linux goes through libdispatch's timer
/// thread and wakes a worker; the daemon sets a deadline for every frame it sends and every call it rings,
/// and those hand-offs showed in every request's cost.
///
/// The handler runs on the loop's thread and must not block. Setting the timer again replaces the previous
/// setting; a timer that is released is disarmed and its descriptor closed (no report reaches its handler
/// afterwards: the loop looks the handler up by a registration number that is never reused).
public final class LoopTimer: Sendable {
  private let timer: TimerDescriptor
  private let registration: UInt64
  private let loop: DescriptorEventLoop

  /// The timerfd, closed under a lock that its handler takes too: a report the loop was already handing
  /// over when the timer was released finds it closed, and never reads a descriptor number reused since.
  private final class TimerDescriptor: Sendable {
    let descriptor: CInt
    let open = Mutex(true)

    init(_ descriptor: CInt) { self.descriptor = descriptor }

    /// Whether the timer expired since it was last set (and clears that).
    func expired() -> Bool {
      open.withLock { open in open && callalert_timer_clear(descriptor) > 0 }
    }

    func close(leaving loop: DescriptorEventLoop, registration: UInt64) {
      open.withLock { open in
        open = false
        loop.remove(registration, descriptor: FileDescriptor(rawValue: descriptor))
        try? FileDescriptor(rawValue: descriptor).close()
      }
    }
  }

  /// Creates a disarmed timer of `loop` that calls `handler`, on the loop's thread, each time it expires.
  public init(loop: DescriptorEventLoop = .shared, _ handler: @escaping @Sendable () -> Void) throws(Errno) {
    self.loop = loop
    let descriptor = callalert_timer_create()
    guard descriptor >= 0 else { throw Errno(rawValue: errno) }
    let timer = TimerDescriptor(descriptor)
    self.timer = timer
    registration = loop.makeID()
    do throws(Errno) {
      try loop.add(
        id: registration, descriptor: FileDescriptor(rawValue: descriptor),
        interest: .init(readable: true, writable: false),
        handler: { _ in
          // Not expired: set again after it expired and before this report.
          if timer.expired() { handler() }
        })
    } catch {
      try? FileDescriptor(rawValue: descriptor).close()
      throw error
    }
  }

  deinit {
    timer.close(leaving: loop, registration: registration)
  }

  /// Expires once `deadline` has come (at once if it has), or never (nil).
  public func set(at deadline: ContinuousClock.Instant?) {
    set(after: deadline.map { ContinuousClock.now.duration(to: $0) })
  }

  /// Expires once `delay` from now has passed (at once if it is not positive), or never (nil).
  public func set(after delay: Duration?) {
    guard let delay else {
      _ = callalert_timer_set(timer.descriptor, -1)
      return
    }
    let (seconds, attoseconds) = delay.components
    // A deadline that has passed expires at once (a negative count would disarm the timer instead; less than
    // a second late, the seconds are 0 and only the attoseconds are negative).
    let nanoseconds = seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    _ = callalert_timer_set(timer.descriptor, max(0, nanoseconds))
  }

  /// An alarm for a ``DeadlineTimer``-style owner driven against `clock`: given what to call when the alarm
  /// rings, returns how to set it (an instant, or nil for never).
  ///
  /// The one place where the way to wait is chosen: a clock whose time is the loop timer's (a
  /// ``LoopTimedClock``, the `ContinuousClock`) gets a loop timer, set to the delay the clock itself reads to
  /// the instant; any other clock (a test clock, an accelerated one) gets nil, and its owner sleeps on the
  /// clock, so that its deadlines come when that clock says.
  public static func alarm<C: Clock<Duration>>(
    on clock: C, loop: DescriptorEventLoop = .shared
  ) -> ((_ ring: @escaping @Sendable () -> Void) -> (@Sendable (C.Instant?) -> Void)?)? {
    guard clock is any LoopTimedClock else { return nil }
    return { ring in
      guard let timer = try? LoopTimer(loop: loop, ring) else { return nil }  // out of descriptors: sleep instead
      return { instant in timer.set(after: instant.map { clock.now.duration(to: $0) }) }
    }
  }
}

/// A clock whose time passes as the loop timer's does (`CLOCK_BOOTTIME`), so that a delay it reads can be
/// waited for by a ``LoopTimer``: the daemon's deadlines then cost no sleeping task. A clock that does not
/// conform keeps its own time (a test clock moves only when told), and is waited on by sleeping on it.
public protocol LoopTimedClock: Clock<Duration> {}

extension ContinuousClock: LoopTimedClock {}
