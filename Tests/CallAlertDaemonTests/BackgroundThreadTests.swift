import Synchronization
import Testing

@testable import CallAlertDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// The history's thread: work runs in order, and on Linux in the idle scheduling class, so that a commit
/// never holds a core that the event loop wants.
@Suite("Background thread", .timeLimit(.minutes(1)))
struct BackgroundThreadTests {
  /// Collects what the jobs report and wakes the test once the last one ran.
  final class Reports: Sendable {
    private let state = Mutex<(values: [Int], waiter: CheckedContinuation<[Int], Never>?, expected: Int)>(
      ([], nil, 0))

    func add(_ value: Int) {
      let done = state.withLock { state -> (CheckedContinuation<[Int], Never>, [Int])? in
        state.values.append(value)
        guard state.values.count == state.expected, let waiter = state.waiter else { return nil }
        state.waiter = nil
        return (waiter, state.values)
      }
      if let (waiter, values) = done { waiter.resume(returning: values) }
    }

    func wait(for count: Int) async -> [Int] {
      await withCheckedContinuation { continuation in
        let ready = state.withLock { state -> [Int]? in
          state.expected = count
          if state.values.count >= count { return state.values }
          state.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    }
  }

  @Test func jobsRunInTheOrderTheyCame() async {
    let thread = BackgroundThread(name: "test background")
    let reports = Reports()
    for index in 0..<100 { thread.async { reports.add(index) } }
    #expect(await reports.wait(for: 100) == Array(0..<100))
    thread.finish()
  }

  #if os(Linux)
    @Test func itRunsOnlyWhenNothingElseWantsTheCore() async {
      let thread = BackgroundThread(name: "test background")
      let reports = Reports()
      thread.async { reports.add(Int(sched_getscheduler(0))) }
      let policy = await reports.wait(for: 1).first
      // Lowering one's own thread needs no privilege, so a refusal here is a regression.
      #expect(policy == Int(BackgroundThread.idlePolicy), "scheduling policy \(String(describing: policy))")
      thread.finish()
    }

    @Test func aNormalThreadStaysInTheNormalClass() async {
      let thread = BackgroundThread(name: "test background", priority: .normal)
      let reports = Reports()
      thread.async { reports.add(Int(sched_getscheduler(0))) }
      #expect(await reports.wait(for: 1).first == Int(SCHED_OTHER))
      thread.finish()
    }
  #endif
}
