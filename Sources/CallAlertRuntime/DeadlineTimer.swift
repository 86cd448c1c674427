import Synchronization

/// One long-lived wake-up for a pure state machine driven against a `Clock`: the owner steps its machine,
/// then tells the timer the machine's next deadline (``schedule(atMs:)``); ``run(onDeadline:)`` calls back
/// once that time has come. The time base is milliseconds since the timer was made (``nowMs``), the number
/// the portable state machines take as `now`.
///
/// There is one waiting loop for the timer's whole life, not a task per deadline: a later or cleared
/// deadline does not disturb it (it wakes at the old time, finds nothing due and waits on), and only an
/// earlier one interrupts its sleep. Used by `BoardClient`, the daemon's alert service and the virtual
/// board runner alike.
///
/// With an *alarm* (``init(clock:alarm:)``; the event loop's timer for the real clock), the loop does not
/// sleep on the clock at all: the alarm is set to the deadline and its ring wakes the loop. A deadline that
/// moves earlier moves the alarm; one that moves later or is cleared leaves it, and its ring, now early, only
/// makes the loop look again and set it for the new time: a frame sent and acknowledged costs one system
/// call to set the alarm, not one per change. That spares a sleeping child task, and libdispatch's timer
/// thread, for each deadline that moves earlier: one per frame sent to a board.
public final class DeadlineTimer<C: Clock>: Sendable where C.Duration == Duration {
  /// The clock.
  public let clock: C
  /// The instant ``nowMs`` counts from.
  public let start: C.Instant
  private let state = Mutex(DeadlineTimerState())
  /// Sets the alarm (nil: disarms it); nil without an alarm.
  private let alarm: (@Sendable (C.Instant?) -> Void)?

  /// How to make an alarm: given what to call when it rings (from any thread), how to set it; nil when none
  /// can be made (the timer then sleeps on the clock).
  public typealias AlarmFactory = (_ ring: @escaping @Sendable () -> Void) -> (@Sendable (C.Instant?) -> Void)?

  /// Creates a timer whose ``nowMs`` reads 0 now; with `alarm`, it waits for the alarm instead of sleeping on
  /// the clock.
  public init(clock: C, alarm: AlarmFactory? = nil) {
    self.clock = clock
    start = clock.now
    let ringer = Ringer()
    self.alarm = alarm?({ ringer.ring() })
    ringer.timer.withLock { $0 = WeakTimer(timer: self) }
  }

  /// Whether ``run(onDeadline:)`` waits on an alarm rather than on the clock. For tests.
  public var hasAlarm: Bool { alarm != nil }

  /// What the alarm calls: the timer, weakly (the alarm is the timer's, not the other way round).
  private final class Ringer: Sendable {
    let timer = Mutex(WeakTimer(timer: nil))
    func ring() { timer.withLock { $0.timer }?.alarmRang() }
  }

  /// The alarm rang (it is no longer set): the loop looks again.
  private func alarmRang() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.alarmAt = nil
      state.generation &+= 1
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  private struct WeakTimer: Sendable {
    weak var timer: DeadlineTimer?
  }

  /// Milliseconds since the timer was made.
  public var nowMs: UInt64 { Self.milliseconds(start.duration(to: clock.now)) }

  /// The instant `ms` milliseconds after ``start``.
  public func instant(atMs ms: UInt64) -> C.Instant { start.advanced(by: .milliseconds(Int64(clamping: ms))) }

  /// Whole milliseconds in `duration`, 0 for a negative one.
  public static func milliseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    return UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
  }

  /// The pending deadline in milliseconds since ``start``; nil when none. For tests.
  public var scheduledMs: UInt64? {
    state.withLock { $0.target }
  }

  /// Sets the next deadline (nil: none), replacing the previous one.
  public func schedule(atMs target: UInt64?) {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      let earlier =
        if let target { state.target.map { target < $0 } ?? true } else { false }
      state.target = target
      if state.waitsForAlarm {
        // Earlier: the alarm moves, and the loop waits on. Later or cleared: its early ring makes the loop
        // look again.
        if let target, state.alarmAt.map({ target < $0 }) ?? true {
          state.alarmAt = target
          alarm?(instant(atMs: target))
        }
        return nil
      }
      guard earlier else { return nil }
      state.generation &+= 1
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  /// Calls `onDeadline` each time the scheduled deadline comes (the deadline is cleared first: the callback
  /// schedules the next one), until the calling task is cancelled.
  public func run(onDeadline: @Sendable () async -> Void) async {
    defer {
      if let alarm {
        state.withLock { state in
          state.alarmAt = nil
          alarm(nil)
        }
      }
    }
    while !Task.isCancelled {
      let (target, generation) = state.withLock { ($0.target, $0.generation) }
      guard let target else {
        await changed(since: generation)
        continue
      }
      if nowMs < target, let alarm {
        // The alarm is set for the deadline unless it rings sooner already (under the lock, so no change
        // slips between); its ring or cancellation ends the wait, and an earlier deadline moves it.
        let armed = state.withLock { state in
          guard state.generation == generation else { return false }
          state.waitsForAlarm = true
          if state.alarmAt.map({ target < $0 }) ?? true {
            state.alarmAt = target
            alarm(instant(atMs: target))
          }
          return true
        }
        if armed { await changed(since: generation) }
        state.withLock { $0.waitsForAlarm = false }
        continue
      }
      if nowMs < target {
        // The sleep is a child so that an earlier deadline can end it; the loop itself waits for whichever
        // comes first, the sleep's end (which wakes it like a change) or the change, without a task hop more.
        let clock = self.clock
        let target = instant(atMs: target)
        await withTaskGroup(of: Void.self) { group in
          group.addTask {
            do { try await clock.sleep(until: target, tolerance: nil) } catch { return }
            self.wake()
          }
          await changed(since: generation)
          group.cancelAll()
        }
        continue  // due now, moved earlier, or cancelled: look again
      }
      let due = state.withLock { state in
        guard state.target == target else { return false }
        state.target = nil
        return true
      }
      if due { await onDeadline() }
    }
  }

  /// Wakes the loop as if the deadline had moved (its sleep ended).
  private func wake() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.generation &+= 1
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  /// Returns once the deadline moved earlier than it was at `generation`, or the task is cancelled.
  private func changed(since generation: UInt64) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state in
          // Cancellation is flagged before its handler runs: seen here, or the handler finds the waiter.
          guard state.generation == generation, !Task.isCancelled else { return true }
          state.waiter = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume()
    }
  }
}

/// What a ``DeadlineTimer`` guards with its lock, in milliseconds since the timer was made rather than in its
/// clock's instants: a type that does not depend on the clock is laid out once, not looked up at run time on
/// each deadline set by code that is generic over the clock.
private struct DeadlineTimerState {
  /// The deadline, nil when none.
  var target: UInt64?
  /// The loop waits for the alarm: a deadline earlier than ``alarmAt`` moves the alarm.
  var waitsForAlarm = false
  /// When the alarm will ring; nil when it is not set (or rang).
  var alarmAt: UInt64?
  /// Bumped when the deadline moves earlier (or appears), or the loop's sleep ends: the loop must look again.
  var generation: UInt64 = 0
  /// The loop, while it waits for the deadline to move.
  var waiter: CheckedContinuation<Void, Never>?
}
