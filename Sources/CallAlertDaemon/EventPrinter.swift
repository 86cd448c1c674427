import CallAlertRuntime
import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Prints the daemon's event lines on a descriptor (standard output) from a thread of its own, so that a
/// reader that stalls or goes away never holds up the engine. Lines wait in a bounded queue: when it is
/// full, lines are dropped, counted and reported in the log (rate-limited). When the descriptor fails
/// (EPIPE: `callalert run | head -1` exited), that is logged once and printing stops; the daemon goes on.
final class EventPrinter: Sendable {
  private struct State {
    var pending: [UInt8] = []
    var pendingLines = 0
    var finished = false
    var failed = false
    var drops: DropReport
    var lostAfterFailure = 0
  }

  private let descriptor: CInt
  private let name: String
  private let capacity: Int
  private let logger: Logger
  private let now: @Sendable () -> Duration
  private let state: Mutex<State>
  private let wakeUp = DispatchSemaphore(value: 0)
  private let stopped = DispatchSemaphore(value: 0)

  /// Starts the printer's thread.
  ///
  /// - Parameters:
  ///   - capacity: how many lines may wait for the descriptor before lines are dropped.
  ///   - reportInterval: at most one log line about dropped lines per interval (and one when it catches up).
  ///   - now: the time, for the rate limit (injected in tests).
  init(
    descriptor: CInt = STDOUT_FILENO, name: String = "standard output", capacity: Int = 1_024,
    reportInterval: Duration = .seconds(10), logger: Logger, now: (@Sendable () -> Duration)? = nil
  ) {
    self.descriptor = descriptor
    self.name = name
    self.capacity = capacity
    self.logger = logger
    let start = ContinuousClock.now
    self.now = now ?? { start.duration(to: .now) }
    state = Mutex(State(drops: DropReport(interval: reportInterval)))
    DetachedThread.start(name: "callalert events") { [self] in writeLoop() }
  }

  /// Queues a line (a newline is added); never blocks.
  func print(_ line: String) {
    let report: Int? = state.withLock { state in
      if state.failed {
        state.lostAfterFailure += 1
        return nil
      }
      guard state.pendingLines < capacity else { return state.drops.dropped(now: now()) }
      state.pending.append(contentsOf: line.utf8)
      state.pending.append(UInt8(ascii: "\n"))
      state.pendingLines += 1
      return nil
    }
    if let report {
      let total = state.withLock { $0.drops.total }
      logger.warning(
        "\(name) is not being read: dropped \(report) event line(s) (\(total) in all); the daemon goes on")
    }
    wakeUp.signal()
  }

  /// Lines dropped because the reader stalled.
  var dropped: Int { state.withLock { $0.drops.total } }

  /// Whether the descriptor failed (its reader went away); nothing is printed after that.
  var failed: Bool { state.withLock { $0.failed } }

  /// Ends the thread once the lines queued so far are written (or the descriptor failed); waits for it at most
  /// `timeout` (a stalled reader must not hold up the daemon's exit).
  func finish(timeout: Duration = .milliseconds(500)) {
    state.withLock { $0.finished = true }
    wakeUp.signal()
    let (seconds, attoseconds) = timeout.components
    _ = stopped.wait(timeout: .now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)))
  }

  private func writeLoop() {
    while true {
      wakeUp.wait()
      let (batch, finished) = state.withLock { state in
        defer {
          state.pending.removeAll(keepingCapacity: true)
          state.pendingLines = 0
        }
        return (state.pending, state.finished)
      }
      if !batch.isEmpty {
        if let error = DescriptorWriter.writeAll(descriptor, batch) {
          state.withLock { $0.failed = true }
          logger.error(
            "\(name) failed (\(String(cString: strerror(error)))): events are no longer printed; the daemon goes on")
          break
        }
        let caughtUp = state.withLock { state in
          state.pendingLines == 0 ? state.drops.caughtUp(now: now()).map { ($0, state.drops.total) } : nil
        }
        if let (count, total) = caughtUp {
          logger.notice("\(name) caught up; \(count) more event line(s) were dropped (\(total) in all)")
        }
      }
      if finished { break }
    }
    stopped.signal()
  }
}

/// When to report lines dropped for a stalled reader: the first drop at once, then at most once per
/// interval, and what is left when the reader catches up. Pure: the time comes in as an argument.
struct DropReport {
  /// The shortest time between two reports.
  let interval: Duration
  /// Every line dropped so far.
  private(set) var total = 0
  private var unreported = 0
  private var lastReport: Duration?

  init(interval: Duration) { self.interval = interval }

  /// Counts a dropped line; returns how many to report now, or nil to stay quiet.
  mutating func dropped(now: Duration) -> Int? {
    total += 1
    unreported += 1
    if let lastReport, now - lastReport < interval { return nil }
    return report(now: now)
  }

  /// The reader caught up: returns the drops not reported yet, if any.
  mutating func caughtUp(now: Duration) -> Int? {
    unreported > 0 ? report(now: now) : nil
  }

  private mutating func report(now: Duration) -> Int {
    lastReport = now
    defer { unreported = 0 }
    return unreported
  }
}

/// write(2) of a whole buffer: retries after EINTR and partial writes, waits for a non-blocking descriptor to
/// take more; returns the errno that stopped it (EPIPE: the reader is gone), nil when all was written.
enum DescriptorWriter {
  static func writeAll(_ fd: CInt, _ bytes: [UInt8]) -> Int32? {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { raw in
        write(fd, raw.baseAddress! + offset, raw.count - offset)
      }
      if written >= 0 {
        offset += written
        continue
      }
      let error = errno
      if error == EINTR { continue }
      if error == EAGAIN || error == EWOULDBLOCK {
        var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&waiting, 1, -1)
        continue
      }
      return error
    }
    return nil
  }
}
