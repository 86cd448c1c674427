import CallAlertTransport
import Synchronization
import Testing

/// The event loop as an executor: an actor that declares it and a task that prefers it run on the loop's
/// thread, work handed in from other threads runs in order (ringing the loop's doorbell when it sleeps),
/// `perform` runs inline on the loop and hands in from elsewhere, and a loop timer rings once at its time,
/// again when set again, and never when disarmed or released. Every wait is bounded.
@Suite struct EventLoopExecutorTests {
  actor OnTheLoop {
    nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }
    var count = 0

    func step() -> Bool {
      count += 1
      return DescriptorEventLoop.shared.isCurrent
    }
  }

  @Test func anActorOfTheLoopRunsOnItsThread() async {
    let actor = OnTheLoop()
    #expect(!DescriptorEventLoop.shared.isCurrent, "a test runs on the pool")
    for _ in 0..<100 { #expect(await actor.step()) }
    #expect(await actor.count == 100)
  }

  @Test func aTaskThatPrefersTheLoopRunsThere() async {
    let onLoop = await Task(executorPreference: DescriptorEventLoop.shared) {
      await Task.yield()  // resumed where it prefers
      return DescriptorEventLoop.shared.isCurrent
    }.value
    #expect(onLoop)
    let nested = await withTaskExecutorPreference(DescriptorEventLoop.shared) {
      await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<8 { group.addTask { DescriptorEventLoop.shared.isCurrent } }
        return await group.reduce(true) { $0 && $1 }
      }
    }
    #expect(nested, "child tasks inherit the preference")
  }

  @Test func workHandedInRunsInOrderOnTheLoop() async {
    let seen = Mutex<[Int]>([])
    let allOnLoop = Atomic<Bool>(true)
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      for index in 0..<1_000 {
        DescriptorEventLoop.shared.execute {
          if !DescriptorEventLoop.shared.isCurrent { allOnLoop.store(false, ordering: .relaxed) }
          seen.withLock { $0.append(index) }
          if index == 999 { done.resume() }
        }
      }
    }
    #expect(seen.withLock { $0 } == Array(0..<1_000))
    let everyPieceOnTheLoop = allOnLoop.load(ordering: .relaxed)
    #expect(everyPieceOnTheLoop)
  }

  @Test func performRunsInlineOnTheLoopAndHandsInFromElsewhere() async {
    let order = await withCheckedContinuation { (done: CheckedContinuation<[String], Never>) in
      DescriptorEventLoop.shared.execute {
        var order: [String] = []
        let box = Mutex<[String]>([])
        DescriptorEventLoop.shared.perform { box.withLock { $0.append("inline") } }
        order = box.withLock { $0 }
        order.append("after")
        done.resume(returning: order)
      }
    }
    #expect(order == ["inline", "after"])
    let ranOnLoop = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
      DescriptorEventLoop.shared.perform { done.resume(returning: DescriptorEventLoop.shared.isCurrent) }
    }
    #expect(ranOnLoop)
  }

  @Test func aLoopTimerRingsOnceAtItsTime() async throws {
    let rings = Rings()
    let timer = try LoopTimer { rings.ring() }
    let clock = ContinuousClock()
    let start = clock.now
    timer.set(at: start.advanced(by: .milliseconds(30)))
    let first = await rings.next(within: .seconds(10))
    #expect(first != nil)
    if let first { #expect(start.duration(to: first) >= .milliseconds(30), "never early") }
    #expect(await rings.next(within: .milliseconds(100)) == nil, "once, not again")
    timer.set(at: clock.now.advanced(by: .milliseconds(5)))
    #expect(await rings.next(within: .seconds(10)) != nil, "set again, it rings again")
  }

  /// A deadline already past rings at once, whether it passed less than a second ago (only the attoseconds
  /// of the difference are negative) or more: a negative count would have disarmed the timerfd.
  @Test func aDeadlineAlreadyPastRingsAtOnce() async throws {
    for late in [Duration.milliseconds(300), .seconds(2)] {
      let rings = Rings()
      let timer = try LoopTimer { rings.ring() }
      timer.set(at: ContinuousClock.now.advanced(by: .zero - late))
      #expect(await rings.next(within: .seconds(10)) != nil, "\(late) late")
    }
  }

  @Test func aDisarmedOrMovedTimerDoesNotRingAtTheOldTime() async throws {
    let rings = Rings()
    let timer = try LoopTimer { rings.ring() }
    let clock = ContinuousClock()
    timer.set(at: clock.now.advanced(by: .milliseconds(20)))
    timer.set(at: nil)
    #expect(await rings.next(within: .milliseconds(100)) == nil)
    let moved = clock.now.advanced(by: .milliseconds(150))
    timer.set(at: clock.now.advanced(by: .milliseconds(10)))
    timer.set(at: moved)
    let ring = await rings.next(within: .seconds(10))
    #expect(ring.map { $0 >= moved } == true, "rings at the later time only")
  }

  /// The one choice of how a deadline is waited for: the continuous clock's alarm is a loop timer, set to the
  /// delay the clock itself reads to the instant, ringing at the deadline and not once disarmed; any other
  /// clock (the suspending clock here, a test clock alike) gets none, and the `DeadlineTimer` that asked
  /// sleeps on that clock instead (its tests on a test clock cover that path).
  @Test func theAlarmIsALoopTimerForTheContinuousClockAndNoneForAnother() async {
    let rings = Rings()
    let clock = ContinuousClock()
    guard let set = LoopTimer.alarm(on: clock)?({ rings.ring() }) else {
      Issue.record("no loop timer for the continuous clock")
      return
    }
    let deadline = clock.now.advanced(by: .milliseconds(30))
    set(deadline)
    let first = await rings.next(within: .seconds(10))
    #expect(first.map { $0 >= deadline } == true, "rings at its deadline, never early")
    set(clock.now.advanced(by: .milliseconds(20)))
    set(nil)
    #expect(await rings.next(within: .milliseconds(100)) == nil, "disarmed, it does not ring")
    #expect(LoopTimer.alarm(on: SuspendingClock()) == nil)
  }

  @Test func aReleasedTimerNeverRings() async throws {
    let rings = Rings()
    do {
      let timer = try LoopTimer { rings.ring() }
      timer.set(at: ContinuousClock.now.advanced(by: .milliseconds(10)))
    }
    #expect(await rings.next(within: .milliseconds(100)) == nil)
  }
}

/// The instants a timer rang at, awaited with a bound.
private final class Rings: Sendable {
  private let times = Mutex<[ContinuousClock.Instant]>([])
  private let taken = Atomic<Int>(0)

  func ring() { times.withLock { $0.append(.now) } }

  /// The next ring not yet taken, waiting up to `timeout` for it; nil when none came.
  func next(within timeout: Duration) async -> ContinuousClock.Instant? {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
      let index = taken.load(ordering: .relaxed)
      if let time = times.withLock({ index < $0.count ? $0[index] : nil }) {
        taken.store(index + 1, ordering: .relaxed)
        return time
      }
      if ContinuousClock.now >= deadline { return nil }
      // Polled in 2 ms steps: the timer rings in real time, and the poll keeps the bound without a task.
      try? await Task.sleep(for: .milliseconds(2))
    }
  }
}
