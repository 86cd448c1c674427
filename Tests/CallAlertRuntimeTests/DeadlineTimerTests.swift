import CallAlertRuntime
import Clocks
import Synchronization
import Testing

/// The shared deadline loop on a test clock: it fires at the deadline and not before, an earlier deadline
/// interrupts its sleep, a later or cleared one is honoured, and cancellation ends it. Every wait is bounded.
@Suite struct DeadlineTimerTests {
  /// Runs the timer, recording `nowMs` at each wake-up.
  final class Recorder: Sendable {
    let clock = TestClock()
    let timer: DeadlineTimer<TestClock<Duration>>
    private let wakes = Mutex<[UInt64]>([])

    /// A timer that sleeps on the test clock, or waits for `alarm` when given (``DeadlineTimerAlarmTests``).
    init(alarm: DeadlineTimer<TestClock<Duration>>.AlarmFactory? = nil) {
      timer = DeadlineTimer(clock: clock, alarm: alarm)
    }

    var fired: [UInt64] { wakes.withLock { $0 } }

    func start() -> Task<Void, Never> {
      Task { [self] in await timer.run { self.record() } }
    }

    private func record() {
      let now = timer.nowMs
      wakes.withLock { $0.append(now) }
    }

    /// Advances the clock by `step` after letting the loop reach its sleep.
    func advance(by step: Duration) async {
      await settle()
      await clock.advance(by: step)
      await settle()
    }
  }

  @Test func firesAtTheDeadlineAndNotBefore() async {
    let rig = Recorder()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    await rig.advance(by: .milliseconds(99))
    #expect(rig.fired.isEmpty)
    await rig.advance(by: .milliseconds(1))
    #expect(await eventually { rig.fired == [100] }, "\(rig.fired)")
    #expect(rig.timer.scheduledMs == nil)
  }

  @Test func anEarlierDeadlineInterruptsTheSleep() async {
    let rig = Recorder()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 1_000)
    await rig.advance(by: .milliseconds(10))
    rig.timer.schedule(atMs: 50)
    await rig.advance(by: .milliseconds(40))
    #expect(await eventually { rig.fired == [50] }, "\(rig.fired)")
  }

  @Test func aLaterDeadlineIsWaitedFor() async {
    let rig = Recorder()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 50)
    await rig.advance(by: .milliseconds(10))
    rig.timer.schedule(atMs: 200)
    await rig.advance(by: .milliseconds(100))
    #expect(rig.fired.isEmpty)
    await rig.advance(by: .milliseconds(90))
    #expect(await eventually { rig.fired == [200] }, "\(rig.fired)")
  }

  @Test func aClearedDeadlineNeverFires() async {
    let rig = Recorder()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 50)
    await rig.advance(by: .milliseconds(10))
    rig.timer.schedule(atMs: nil)
    await rig.advance(by: .seconds(1))
    #expect(rig.fired.isEmpty)
    rig.timer.schedule(atMs: 1_500)  // an idle loop wakes for a new deadline
    await rig.advance(by: .milliseconds(490))
    #expect(await eventually { rig.fired == [1_500] }, "\(rig.fired)")
  }

  @Test func aDeadlineSetBeforeTheLoopStartsIsKept() async {
    let rig = Recorder()
    rig.timer.schedule(atMs: 30)
    let loop = rig.start()
    defer { loop.cancel() }
    await rig.advance(by: .milliseconds(30))
    #expect(await eventually { rig.fired == [30] }, "\(rig.fired)")
  }

  @Test func cancellationEndsTheLoop() async {
    let rig = Recorder()
    let idle = rig.start()
    await settle()
    idle.cancel()
    await idle.value  // waiting for a deadline that never comes: returns on cancellation
    rig.timer.schedule(atMs: 10)
    let sleeping = rig.start()
    await settle()
    sleeping.cancel()
    await sleeping.value  // sleeping towards a deadline: returns too
    #expect(rig.fired.isEmpty)
  }
}

/// Lets other tasks run for a while (a bounded number of yields, never a sleep): enough, on a quiet machine, for
/// the loop to act on what it was given, so that an expectation that nothing happened means something. It is no
/// synchronisation: on a loaded machine the loop may not have run yet, so what must happen is waited for with
/// ``eventually(_:)``.
func settle() async {
  for _ in 0..<50 { await Task.yield() }
}

/// Waits until `condition` holds, yielding to the tasks under test (and, after the first yields, pausing a
/// millisecond between looks); at most 5 s of real time, so a regression fails instead of hanging. Whether it
/// held. A loaded machine once left the loop unrun through ``settle()``'s 50 yields (1 run in 20 of a loaded
/// flake-hunt): the expectation of what must happen waits for it.
func eventually(_ condition: () -> Bool) async -> Bool {
  let end = ContinuousClock.now + .seconds(5)
  var looks = 0
  while !condition() {
    guard ContinuousClock.now < end else { return false }
    looks += 1
    if looks < 50 { await Task.yield() } else { try? await Task.sleep(for: .milliseconds(1)) }
  }
  return true
}
