import Foundation
import Synchronization

/// Lines as they come (a daemon's events, a peer's output, a subscriber's messages), kept, and awaited with a
/// deadline.
public final class LineLog: Sendable {
  private struct Waiter {
    let id: Int
    let predicate: @Sendable (String) -> Bool
    let continuation: CheckedContinuation<String?, Never>
  }
  private let state = Mutex<(lines: [String], waiters: [Waiter], next: Int)>(([], [], 0))

  /// An empty log.
  public init() {}

  /// A log of a stream's lines, collected as they come.
  public convenience init(_ stream: AsyncStream<String>) {
    self.init()
    Task { [self] in for await line in stream { append(line) } }
  }

  /// Adds a line, and hands it to whoever waits for one like it.
  public func append(_ line: String) {
    let ready = state.withLock { state in
      state.lines.append(line)
      let ready = state.waiters.filter { $0.predicate(line) }
      state.waiters.removeAll { $0.predicate(line) }
      return ready
    }
    for waiter in ready { waiter.continuation.resume(returning: line) }
  }

  /// Every line so far.
  public var all: [String] { state.withLock { $0.lines } }

  /// How many lines so far satisfy `predicate`.
  public func count(where predicate: (String) -> Bool) -> Int { all.filter(predicate).count }

  /// The first line so far (from line `start` on) or from now on satisfying `predicate`; nil when none came
  /// within `seconds` (the bound on a wait, never a stand-in for one). The predicate runs under the lock: it must
  /// not read these lines.
  public func first(
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
