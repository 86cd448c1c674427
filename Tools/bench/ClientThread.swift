import Foundation

/// Runs `body` on a new thread of its own and returns its result.
///
/// The bench's clients block in system calls, as the C floor's client does: a measurement loop runs whole on
/// one such thread, so the daemon and its boards keep the concurrency pool to themselves, and no task hop of
/// the bench's own falls inside a timed trip or into the CPU counted per request.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.stackSize = 1 << 20
    thread.start()
  }
}
