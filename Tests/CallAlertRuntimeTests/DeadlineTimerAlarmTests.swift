import CallAlertRuntime
import Clocks
import Synchronization
import Testing

/// The deadline loop on an alarm (the event loop's timer, in the daemon) instead of a sleep: the alarm is set
/// to the deadline and moved when the deadline moves earlier; a later or cleared deadline leaves it, and its
/// early ring only sets it again. Only a ring at or after the deadline fires it. A fake alarm on a test clock,
/// rung by the test: deterministic, no real time.
@Suite struct DeadlineTimerAlarmTests {
  /// The shared recorder's timer on an alarm that records each setting and is rung by the test.
  final class Rig: Sendable {
    private let recorder: DeadlineTimerTests.Recorder
    private let log: Log

    init() {
      let log = Log()
      recorder = DeadlineTimerTests.Recorder(alarm: { ring in
        log.ringer.withLock { $0 = ring }
        return { instant in log.settings.withLock { $0.append(instant) } }
      })
      self.log = log
    }

    /// What the alarm was told and how to ring it, held by the alarm before the rig is complete.
    private final class Log: Sendable {
      let settings = Mutex<[TestClock<Duration>.Instant?]>([])
      let ringer = Mutex<(@Sendable () -> Void)?>(nil)
    }

    var clock: TestClock<Duration> { recorder.clock }
    var timer: DeadlineTimer<TestClock<Duration>> { recorder.timer }
    var fired: [UInt64] { recorder.fired }
    func start() -> Task<Void, Never> { recorder.start() }

    /// Each setting of the alarm, in ms since the timer's start (nil: disarmed).
    var alarm: [UInt64?] {
      log.settings.withLock { $0 }.map {
        $0.map { DeadlineTimer<TestClock<Duration>>.milliseconds(timer.start.duration(to: $0)) }
      }
    }

    /// Advances the clock by `step`, then rings the alarm as the event loop does when its timer expires, and
    /// lets the loop act on it.
    func ring(after step: Duration = .zero) async {
      await clock.advance(by: step)
      log.ringer.withLock { $0 }?()
      await settle()
    }
  }

  @Test func theAlarmIsSetToTheDeadlineAndItsRingFiresIt() async {
    let rig = Rig()
    #expect(rig.timer.hasAlarm)
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    #expect(await eventually { rig.alarm == [100] }, "\(rig.alarm)")
    await rig.clock.advance(by: .milliseconds(100))
    await settle()
    #expect(rig.fired.isEmpty, "the clock alone wakes nothing: no task sleeps on it")
    await rig.ring()
    #expect(await eventually { rig.fired == [100] }, "\(rig.fired)")
    #expect(rig.alarm == [100], "set once; it rang, so nothing is left to disarm")
  }

  @Test func anEarlierDeadlineMovesTheAlarmALaterOrClearedOneLeavesIt() async {
    let rig = Rig()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    #expect(await eventually { rig.alarm == [100] }, "\(rig.alarm)")
    rig.timer.schedule(atMs: 300)
    rig.timer.schedule(atMs: nil)
    rig.timer.schedule(atMs: 200)
    rig.timer.schedule(atMs: 50)
    #expect(await eventually { rig.alarm.count >= 2 }, "\(rig.alarm)")
    await settle()
    #expect(rig.alarm == [100, 50], "one system call per earlier deadline, none for the others")
    await rig.ring(after: .milliseconds(50))
    #expect(await eventually { rig.fired == [50] }, "\(rig.fired)")
  }

  @Test func aLaterDeadlineIsFiredAfterTheAlarmsEarlyRingSetsItAgain() async {
    let rig = Rig()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    #expect(await eventually { rig.alarm == [100] }, "\(rig.alarm)")
    rig.timer.schedule(atMs: 300)  // the alarm stays at 100
    await rig.ring(after: .milliseconds(100))
    #expect(await eventually { rig.alarm == [100, 300] }, "\(rig.alarm)")
    #expect(rig.fired.isEmpty, "the early ring fires nothing")
    await rig.ring(after: .milliseconds(200))
    #expect(await eventually { rig.fired == [300] }, "\(rig.fired)")
  }

  @Test func aRingBeforeTheDeadlineFiresNothingAndSetsTheAlarmAgain() async {
    let rig = Rig()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    #expect(await eventually { rig.alarm == [100] }, "\(rig.alarm)")
    await rig.ring(after: .milliseconds(40))  // early: a deadline moved later since it was set
    #expect(await eventually { rig.alarm == [100, 100] }, "set again for the same deadline: \(rig.alarm)")
    #expect(rig.fired.isEmpty)
    await rig.ring(after: .milliseconds(60))
    #expect(await eventually { rig.fired == [100] }, "\(rig.fired)")
  }

  @Test func cancellationDisarmsTheAlarm() async {
    let rig = Rig()
    let loop = rig.start()
    rig.timer.schedule(atMs: 100)
    #expect(await eventually { rig.alarm == [100] }, "\(rig.alarm)")
    loop.cancel()
    await loop.value
    #expect(rig.alarm == [100, nil])
    #expect(rig.fired.isEmpty)
  }
}
