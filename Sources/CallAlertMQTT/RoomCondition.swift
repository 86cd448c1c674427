#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A mutex and its condition, as Foundation's `NSCondition` is on Linux (a `pthread_mutex_t` and a
/// `pthread_cond_t`), for libmosquitto's thread to wait for room without full Foundation. Use it as
/// `NSCondition` was used: `lock()`, then `wait(seconds:)` in a loop that checks its own predicate,
/// `signal()` or `broadcast()` under the lock, `unlock()`.
final class RoomCondition: @unchecked Sendable {
  // Unchecked: the pthread objects are the synchronisation; they live at fixed heap addresses (a pthread
  // mutex must not move) until deinit.
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  /// Takes the mutex.
  func lock() { pthread_mutex_lock(mutex) }

  /// Gives the mutex back.
  func unlock() { pthread_mutex_unlock(mutex) }

  /// With the mutex held: waits for a signal or until `seconds` have passed on the wall clock (as
  /// `wait(until: Date(timeIntervalSinceNow:))` did); true when signalled (or woken spuriously).
  @discardableResult
  func wait(seconds: Double) -> Bool {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let nanoseconds = Int(now.tv_nsec) + Int(seconds * 1_000_000_000)
    var deadline = timespec(
      tv_sec: now.tv_sec + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
    return pthread_cond_timedwait(condition, mutex, &deadline) == 0
  }

  /// Wakes one waiter.
  func signal() { pthread_cond_signal(condition) }

  /// Wakes every waiter.
  func broadcast() { pthread_cond_broadcast(condition) }
}
