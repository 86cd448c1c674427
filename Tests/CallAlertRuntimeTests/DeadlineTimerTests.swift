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
    #expect(rig.fired == [100])
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
    #expect(rig.fired == [50])
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
    #expect(rig.fired == [200])
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
    #expect(rig.fired == [1_500])
  }

  @Test func aDeadlineSetBeforeTheLoopStartsIsKept() async {
    let rig = Recorder()
    rig.timer.schedule(atMs: 30)
    let loop = rig.start()
    defer { loop.cancel() }
    await rig.advance(by: .milliseconds(30))
    #expect(rig.fired == [30])
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

/// Lets other tasks run until they are parked (a bounded number of yields, never a sleep).
func settle() async {
  for _ in 0..<50 { await Task.yield() }
}
