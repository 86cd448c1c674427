import CallAlertRuntime
import CallAlertTransport

/// Closes the control socket's connections that were idle for the timeout, with one wake-up for all of them:
/// at the earliest moment one of them could have been idle that long, and none at all while no connection
/// is open. A connection that lives a millisecond (`callalert notify`) costs an entry in a dictionary, not a
/// timer of its own.
///
/// The connections are isolated to the event loop (``EventLoopActor``), and so is this registry. The wake-ups
/// come from one ``DeadlineTimer`` (on the loop's alarm for the real clock).
@EventLoopActor
final class ControlIdleSweeper<C: Clock<Duration>> {
  private let timeout: Duration
  private let deadlines: DeadlineTimer<C>

  private var connections: [Int: ControlConnection<C>] = [:]

  init(timeout: Duration, clock: C) {
    self.timeout = timeout
    deadlines = DeadlineTimer(clock: clock, alarm: LoopTimer.alarm(on: clock))
  }

  /// Sweeps at each deadline until cancelled.
  nonisolated func run() async {
    await deadlines.run { [self] in await sweep() }
  }

  /// Watches `connection`, the server's number `number`, from now on.
  func add(_ connection: ControlConnection<C>, number: Int) {
    connections[number] = connection
    // A deadline already set is at least as early as this connection's first possible one.
    if deadlines.scheduledMs == nil { schedule(deadlines.clock.now.advanced(by: timeout)) }
  }

  /// Forgets connection `number` (closed). A deadline set for it stays: its wake-up finds nothing to do.
  func remove(number: Int) {
    connections[number] = nil
  }

  private func sweep() {
    var next: C.Instant?
    let now = deadlines.clock.now
    for (number, connection) in connections {
      guard let deadline = connection.idleDeadline(timeout: timeout) else {
        connections[number] = nil
        continue
      }
      if deadline <= now {
        connection.closeIdle(timeout: timeout)  // its close removes it
        connections[number] = nil
      } else if next.map({ deadline < $0 }) ?? true {
        next = deadline
      }
    }
    if let next { schedule(next) }
  }

  /// Sets the timer for `instant`, rounded up to the timer's millisecond so that it never wakes early.
  private func schedule(_ instant: C.Instant) {
    let sinceStart = deadlines.start.duration(to: instant)
    deadlines.schedule(atMs: DeadlineTimer<C>.milliseconds(sinceStart + .nanoseconds(999_999)))
  }
}
