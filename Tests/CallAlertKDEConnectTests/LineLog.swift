import Foundation
import Synchronization

/// Lines as they come (the daemon's events, the scripted phone's output), kept, and awaited with a deadline.
final class LineLog: Sendable {
  private struct Waiter {
    let id: Int
    let predicate: @Sendable (String) -> Bool
    let continuation: CheckedContinuation<String?, Never>
  }
  private let state = Mutex<(lines: [String], waiters: [Waiter], next: Int)>(([], [], 0))

  init() {}

  func append(_ line: String) {
    let ready = state.withLock { state in
      state.lines.append(line)
      let ready = state.waiters.filter { $0.predicate(line) }
      state.waiters.removeAll { $0.predicate(line) }
      return ready
    }
    for waiter in ready { waiter.continuation.resume(returning: line) }
  }

  var all: [String] { state.withLock { $0.lines } }

  /// The first line so far (from line `start` on) or from now on satisfying `predicate`; nil when none came
  /// within `seconds` (the bound on a wait, never a stand-in for one). The predicate runs under the lock: it must
  /// not read these lines.
  func first(
    within seconds: Double, from start: Int = 0, where predicate: @escaping @Sendable (String) -> Bool
  ) async -> String? {
    let id = state.withLock { state in
      state.next += 1
      return state.next
    }
    let timeout = Task { [self] in
      try? await Task.sleep(for: .seconds(seconds))
      let waiter = state.withLock { state in
        state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
      }
      waiter?.continuation.resume(returning: nil)
    }
    defer { timeout.cancel() }
    return await withCheckedContinuation { continuation in
      let found: String? = state.withLock { state -> String? in
        if let line = state.lines.dropFirst(start).first(where: predicate) { return line }
        state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
        return nil
      }
      if let found { continuation.resume(returning: found) }
    }
  }
}
