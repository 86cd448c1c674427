import Foundation

/// Runs blocking work (a `recv` with a timeout, a blocking read) on a thread of its own, so the concurrency
/// pool stays free for the server under test: on two cores, two tests blocking a pool thread each for seconds
/// stopped everything else in the process (an HTTP idle close due in 300 ms came after 5 s).
public func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { done in
    let thread = Thread { done.resume(returning: work()) }
    thread.start()
  }
}
