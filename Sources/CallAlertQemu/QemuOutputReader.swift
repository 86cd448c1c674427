// Full Foundation, not FoundationEssentials: Thread.
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads QEMU's standard output on a thread of its own, from start to end, and finds the pseudo-terminal line.
///
/// QEMU prints `char device redirected to /dev/pts/N (label serial0)` before the machine starts; the rest of
/// its output (nothing, normally) is read as well, copied to standard error or dropped, so QEMU never blocks
/// on a full pipe.
enum QemuOutputReader {
  /// How the wait for the pseudo-terminal line ended.
  enum Outcome: Sendable {
    /// QEMU printed the line.
    case found(String)
    /// QEMU's output ended (QEMU exited) before the line.
    case ended
    /// The line did not come in time.
    case timedOut
  }

  /// Starts reading `output` (which the reader closes at its end) and waits for the pseudo-terminal line.
  ///
  /// With `forwarding`, every other line, before and after it, is copied to this process's standard error.
  static func pseudoTerminalPath(reading output: Int32, forwarding: Bool, timeout: Duration) async -> Outcome {
    await withCheckedContinuation { continuation in
      let once = ResumeOnce(continuation)
      Thread.detachNewThread { drain(output, forwarding: forwarding, reporting: once) }
      once.cancel(
        Task {
          guard (try? await Task.sleep(for: timeout)) != nil else { return }
          once.resume(.timedOut)
        })
    }
  }

  private static func drain(_ output: Int32, forwarding: Bool, reporting once: ResumeOnce<Outcome>) {
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
      let count = read(output, &buffer, buffer.count)
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { break }
      if once.isDone {
        if forwarding { writeToStandardError(buffer[0..<count]) }
        continue
      }
      pending += buffer[0..<count]
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let line = pending[...newline]
        pending.removeSubrange(...newline)
        if !once.isDone, let path = QemuBoard.pseudoTerminalPath(in: String(decoding: line.dropLast(), as: UTF8.self)) {
          once.resume(.found(path))
        } else if forwarding {
          writeToStandardError(line)
        }
      }
      if once.isDone {
        if forwarding { writeToStandardError(pending[...]) }
        pending = []
      }
    }
    if forwarding { writeToStandardError(pending[...]) }
    close(output)
    once.resume(.ended)
  }

  private static func writeToStandardError(_ bytes: ArraySlice<UInt8>) {
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = write(STDERR_FILENO, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        offset += written
      }
    }
  }
}

/// Resumes a continuation once, whichever of several racers comes first, and then cancels the timer racing.
final class ResumeOnce<Value: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Value, Never>?
    var timer: Task<Void, Never>?
  }

  private let state: Mutex<State>

  init(_ continuation: CheckedContinuation<Value, Never>) {
    state = Mutex(State(continuation: continuation))
  }

  /// Whether the continuation was resumed.
  var isDone: Bool { state.withLock { $0.continuation == nil } }

  /// Cancels `timer` when the continuation is resumed (at once if it already was).
  func cancel(_ timer: Task<Void, Never>) {
    let done = state.withLock { state in
      if state.continuation != nil { state.timer = timer }
      return state.continuation == nil
    }
    if done { timer.cancel() }
  }

  /// Resumes the continuation with `value` unless it was resumed before.
  func resume(_ value: Value) {
    let (continuation, timer) = state.withLock { state in
      defer { state = State() }
      return (state.continuation, state.timer)
    }
    timer?.cancel()
    continuation?.resume(returning: value)
  }
}
