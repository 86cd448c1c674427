import CallAlertRuntime
import Clocks
import Synchronization
import Testing

/// The deadline loop on an alarm (the event loop's timer, in the daemon) instead of a sleep: the alarm is set
/// to the deadline and moved when the deadline moves earlier; a later or cleared deadline leaves it, and its
/// early ring only sets it again. Only a ring at or after the deadline fires it. A fake alarm on a test clock,
/// rung by the test: deterministic, no real time.
@Suite struct DeadlineTimerAlarmTests {
  /// A timer whose alarm records each setting and is rung by the test.
  final class Rig: Sendable {
    let clock = TestClock()
    let timer: DeadlineTimer<TestClock<Duration>>
    private let alarmLog = AlarmLog()
    private let wakes = Mutex<[UInt64]>([])

    /// What the alarm was told, and how to ring it.
    final class AlarmLog: Sendable {
      let settings = Mutex<[UInt64?]>([])
      let ringer = Mutex<(@Sendable () -> Void)?>(nil)
    }

    init() {
      let log = alarmLog
      let start = clock.now
      timer = DeadlineTimer(
        clock: clock,
        alarm: { ring in
          log.ringer.withLock { $0 = ring }
          return { instant in
            let ms = instant.map { DeadlineTimer<TestClock<Duration>>.milliseconds(start.duration(to: $0)) }
            log.settings.withLock { $0.append(ms) }
          }
        })
    }

    /// Each setting of the alarm, in ms since the timer's start (nil: disarmed).
    var alarm: [UInt64?] { alarmLog.settings.withLock { $0 } }
    var fired: [UInt64] { wakes.withLock { $0 } }

    func start() -> Task<Void, Never> {
      Task { [self] in
        await timer.run {
          let now = timer.nowMs
          wakes.withLock { $0.append(now) }
        }
      }
    }

    /// Rings the alarm, as the event loop does when its timer expires.
    func ring() { alarmLog.ringer.withLock { $0 }?() }
  }

  @Test func theAlarmIsSetToTheDeadlineAndItsRingFiresIt() async {
    let rig = Rig()
    #expect(rig.timer.hasAlarm)
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    await settle()
    #expect(rig.alarm == [100])
    await rig.clock.advance(by: .milliseconds(100))
    await settle()
    #expect(rig.fired.isEmpty, "the clock alone wakes nothing: no task sleeps on it")
    rig.ring()
    await settle()
    #expect(rig.fired == [100])
    #expect(rig.alarm == [100], "set once; it rang, so nothing is left to disarm")
  }

  @Test func anEarlierDeadlineMovesTheAlarmALaterOrClearedOneLeavesIt() async {
    let rig = Rig()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    await settle()
    rig.timer.schedule(atMs: 300)
    rig.timer.schedule(atMs: nil)
    rig.timer.schedule(atMs: 200)
    rig.timer.schedule(atMs: 50)
    await settle()
    #expect(rig.alarm == [100, 50], "one system call per earlier deadline, none for the others")
    await rig.clock.advance(by: .milliseconds(50))
    rig.ring()
    await settle()
    #expect(rig.fired == [50])
  }

  @Test func aLaterDeadlineIsFiredAfterTheAlarmsEarlyRingSetsItAgain() async {
    let rig = Rig()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    await settle()
    rig.timer.schedule(atMs: 300)  // the alarm stays at 100
    await rig.clock.advance(by: .milliseconds(100))
    rig.ring()
    await settle()
    #expect(rig.fired.isEmpty, "the early ring fires nothing")
    #expect(rig.alarm == [100, 300])
    await rig.clock.advance(by: .milliseconds(200))
    rig.ring()
    await settle()
    #expect(rig.fired == [300])
  }

  @Test func aRingBeforeTheDeadlineFiresNothingAndSetsTheAlarmAgain() async {
    let rig = Rig()
    let loop = rig.start()
    defer { loop.cancel() }
    rig.timer.schedule(atMs: 100)
    await settle()
    await rig.clock.advance(by: .milliseconds(40))
    rig.ring()  // early: a deadline moved later since the alarm was set, in a race the lock did not see
    await settle()
    #expect(rig.fired.isEmpty)
    #expect(rig.alarm == [100, 100], "set again for the same deadline")
    await rig.clock.advance(by: .milliseconds(60))
    rig.ring()
    await settle()
    #expect(rig.fired == [100])
  }

  @Test func cancellationDisarmsTheAlarm() async {
    let rig = Rig()
    let loop = rig.start()
    rig.timer.schedule(atMs: 100)
    await settle()
    loop.cancel()
    await loop.value
    #expect(rig.alarm == [100, nil])
    #expect(rig.fired.isEmpty)
  }
}
