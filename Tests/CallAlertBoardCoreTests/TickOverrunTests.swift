import CallAlertBoardCore
import CallAlertProtocol
import Testing

/// PROTOCOL.md §13.8: a tick more than 50 ms after the time the core scheduled is an overrun, reported as FAULT
/// `tick_overrun` with the milliseconds late, at most once per 1 000 ms. Time is injected: a "stall" is a tick
/// called later than ``BoardCore/nextWakeMs``.
@Suite("Tick overrun")
struct TickOverrunTests {
  /// A session with LED 0 blinking 100/100 ms, so that the core always has a wake-up within 100 ms.
  static func blinking() -> Bench {
    var bench = Bench()
    bench.hello()
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 100, offMs: 100)))
    bench.advance(to: 1_000)
    return bench
  }

  /// Ticks the core `lateMs` after its next scheduled wake-up, as a board whose loop was held up would.
  static func tickLate(_ bench: inout Bench, by lateMs: UInt64) -> UInt64 {
    let due = bench.core.nextWakeMs!
    bench.now = due + lateMs
    bench.core.tick(nowMs: bench.now)
    bench.exchange()
    return due
  }

  static func overruns(_ bench: Bench) -> [FaultEvent] {
    bench.faults.map(\.event).filter { $0.code == .tickOverrun }
  }

  @Test("ticks on time, or up to 50 ms late, raise nothing")
  func onTime() {
    var bench = Self.blinking()
    #expect(Self.overruns(bench).isEmpty)
    _ = Self.tickLate(&bench, by: 50)
    bench.advance(by: 2_000)
    #expect(Self.overruns(bench).isEmpty)
    #expect(bench.core.tickOverrun.count == 0)
  }

  @Test("a tick 51 ms late raises FAULT tick_overrun 51 at once, and the blink catches up anchored")
  func justOver() {
    var bench = Self.blinking()
    let due = Self.tickLate(&bench, by: 51)
    #expect(Self.overruns(bench) == [FaultEvent(.tickOverrun, detail: 51)])
    #expect(bench.faults.last?.ms == due + 51)
    #expect(bench.core.tickOverrun.count == 1)
  }

  @Test("a 150 ms stop of the board is reported with 150")
  func stopOfTheBoard() {
    var bench = Self.blinking()
    _ = Self.tickLate(&bench, by: 150)
    #expect(Self.overruns(bench) == [FaultEvent(.tickOverrun, detail: 150)])
    guard case .reply(_, .status(let status))? = bench.send(.getStatus) else {
      Issue.record("no STATUS")
      return
    }
    #expect(status.counters.faults == 1)
  }

  @Test("overruns within 1 000 ms of a report add up into one FAULT at the end of that second")
  func rationed() {
    var bench = Self.blinking()
    _ = Self.tickLate(&bench, by: 100)
    let first = bench.now
    bench.advance(by: 200)
    _ = Self.tickLate(&bench, by: 60)
    bench.advance(by: 100)
    _ = Self.tickLate(&bench, by: 70)
    #expect(Self.overruns(bench) == [FaultEvent(.tickOverrun, detail: 100)], "the next two are held back")
    bench.advance(to: first + 1_000 - 1)
    #expect(Self.overruns(bench).count == 1)
    bench.advance(to: first + 1_000)
    #expect(Self.overruns(bench) == [FaultEvent(.tickOverrun, detail: 100), FaultEvent(.tickOverrun, detail: 130)])
    bench.advance(by: 5_000)
    #expect(Self.overruns(bench).count == 2, "nothing more was lost")
  }

  @Test("lateness runs from the scheduled wake-up, not from the last tick, and bytes arriving late count too")
  func referencePoint() {
    var bench = Self.blinking()
    let due = bench.core.nextWakeMs!
    // Ticks before the due time are not late, however long since the one before.
    bench.now = due - 1
    bench.core.tick(nowMs: bench.now)
    bench.exchange()
    #expect(Self.overruns(bench).isEmpty)
    let next = bench.core.nextWakeMs!
    // The board next runs because bytes arrive, 80 ms after its blink was due.
    bench.now = next + 80
    #expect(bench.send(.ping([1])) == reply(.ping, .pong([1])))
    #expect(Self.overruns(bench) == [FaultEvent(.tickOverrun, detail: 80)], "the whole delay, not the part beyond 50")
  }

  @Test("the 1 000 ms run from the last report, not from the overrun: a later overrun is reported at once")
  func windowFromTheReport() {
    var bench = Self.blinking()
    _ = Self.tickLate(&bench, by: 60)
    bench.advance(by: 1_200)
    _ = Self.tickLate(&bench, by: 70)
    #expect(Self.overruns(bench) == [FaultEvent(.tickOverrun, detail: 60), FaultEvent(.tickOverrun, detail: 70)])
  }

  @Test("an idle board (nothing scheduled) is never late, however long it sleeps")
  func idle() {
    var bench = Bench()
    bench.hello()
    #expect(bench.core.nextWakeMs == nil)
    bench.now = 60_000
    bench.core.tick(nowMs: bench.now)
    bench.exchange()
    #expect(Self.overruns(bench).isEmpty)
  }
}
