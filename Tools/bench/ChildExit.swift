import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child process's exit, awaited without a thread spinning: Foundation's `Process.waitUntilExit()` polls a run
/// loop on Linux and, called from a Dispatch worker, spins a whole core beside what the bench measures. This
/// sets the process's `terminationHandler` before starting it and resumes a continuation from there.
final class ChildExit: Sendable {
  private struct State {
    var status: Int32?
    var waiter: CheckedContinuation<Int32?, Never>?
  }

  /// The state, in a box of its own so that the termination handler can hold it before `self` is complete.
  private final class Box: Sendable {
    let state = Mutex(State())
  }

  private let box = Box()
  /// The child's process id.
  let pid: pid_t

  /// Starts `process` (configured, not yet running) and watches for its exit.
  init(starting process: Process) throws {
    let box = self.box
    process.terminationHandler = { finished in
      let status = finished.terminationStatus
      let waiter = box.state.withLock { current -> CheckedContinuation<Int32?, Never>? in
        current.status = status
        defer { current.waiter = nil }
        return current.waiter
      }
      waiter?.resume(returning: status)
    }
    try process.run()
    pid = process.processIdentifier
  }

  /// Whether the child has exited.
  var hasExited: Bool { box.state.withLock { $0.status != nil } }

  /// The child's exit status once it has exited, or nil if it is still running after `limit`.
  func wait(upTo limit: Duration) async -> Int32? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
      let exited = box.state.withLock { current -> Int32? in
        if let status = current.status { return status }
        current.waiter = continuation
        return nil
      }
      if let exited {
        continuation.resume(returning: exited)
        return
      }
      let box = self.box
      Task {
        try? await Task.sleep(for: limit)
        let waiter = box.state.withLock { current -> CheckedContinuation<Int32?, Never>? in
          defer { current.waiter = nil }
          return current.waiter
        }
        waiter?.resume(returning: nil)
      }
    }
  }

  /// Waits up to `limit`; if the child is still running, kills it with SIGKILL and waits up to 10 s more.
  /// The exit status, or nil if even SIGKILL did not end it in time.
  func waitOrKill(after limit: Duration) async -> Int32? {
    if let status = await wait(upTo: limit) { return status }
    kill(pid, SIGKILL)
    return await wait(upTo: .seconds(10))
  }
}
