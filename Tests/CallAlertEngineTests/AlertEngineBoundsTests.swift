import CallAlertProtocol
import Foundation
import Testing

@testable import CallAlertEngine

/// The engine's state is bounded and a line costs the same however many calls came before.
@Suite struct AlertEngineBoundsTests {
  @Test func callsBeyondTheBoundAreRefused() {
    var engine = makeEngine()
    // Two sources, each to its share: the whole budget.
    for index in 0..<AlertEngine.maximumActiveCalls {
      let source: CallSource = index.isMultiple(of: 2) ? .mqtt : .http
      let effects = engine.handle(.call(call("c\(index)").from(source)), at: t(UInt64(index)))
      #expect(effects.events.contains { if case .ringing = $0 { true } else { false } })
    }
    let refused = engine.handle(.call(call("one-too-many").from(.standardInput)), at: t(100))
    #expect(refused.events.first == .ignored(callID: "one-too-many", reason: .tooManyCalls))
    #expect(!engine.isActive("one-too-many"))
    // Once one ends, a new call rings again.
    _ = engine.handle(.hangup(callID: "c0"), at: t(101))
    #expect(
      engine.handle(.call(call("next").from(.standardInput)), at: t(102)).events.contains {
        if case .ringing = $0 { true } else { false }
      })
  }

  /// 20 000 calls, each hung up: the memory of finished calls holds all of them (5 min tombstone), and
  /// each line used to scan it. Now the last thousand lines cost about what the first thousand did.
  @Test(.timeLimit(.minutes(2))) func aLineCostsTheSameAfterManyCalls() {
    var engine = makeEngine()
    // The thread's CPU time, not the wall clock's: on a machine busy with the parallel suite the wall clock
    // counts the time this thread waited for a core, and one run measured the last batch at 5.2 times the first.
    func batch(_ range: Range<Int>) -> Duration {
      let start = threadCPUTime()
      for index in range {
        _ = engine.handle(.call(call("c\(index)")), at: t(UInt64(index)))
        _ = engine.handle(.hangup(callID: "c\(index)"), at: t(UInt64(index)))
        _ = engine.nextDeadlineMs
      }
      return threadCPUTime() - start
    }
    let first = batch(0..<1_000)
    _ = batch(1_000..<19_000)
    let last = batch(19_000..<20_000)
    #expect(engine.memory.finished.count == 20_000)
    // Linear cost would make the last batch about 20 times the first; allow generous noise.
    #expect(last < first * 5, "first 1000: \(first), last 1000: \(last)")
  }

  @Test func theTimedMapDropsWhatExpiredInOrder() {
    var map = TimedMap()
    map["a"] = 30
    map["b"] = 10
    map["c"] = 20
    map["b"] = 40  // overwritten: its old moment is stale
    #expect(map.smallest == 20)
    map.removeValue(forKey: "c")
    #expect(map.smallest == 30)
    map.removeExpired { $0 <= 35 }
    #expect(map.values == ["b": 40])
    #expect(map.smallest == 40)
    map.removeExpired { $0 <= 40 }
    #expect(map.count == 0 && map.smallest == nil)
  }
}

/// The CPU time this thread has used (CLOCK_THREAD_CPUTIME_ID).
private func threadCPUTime() -> Duration {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}
