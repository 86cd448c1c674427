import CallAlertTransport
import Synchronization
import Testing

/// The event loop as a global actor: what is isolated to it runs on the loop's thread, in the order it was
/// handed in, and a callback the loop makes on its own thread may enter that isolation synchronously.
@Suite struct EventLoopActorTests {
  @EventLoopActor final class Counter {
    var values: [Int] = []
    func add(_ value: Int) -> Bool {
      values.append(value)
      return DescriptorEventLoop.shared.isCurrent
    }
  }

  @Test func isolatedCodeRunsOnTheLoopsThreadInOrder() async {
    let counter = await Counter()
    var onLoop: [Bool] = []
    for value in 0..<10 { onLoop.append(await counter.add(value)) }
    #expect(onLoop.allSatisfy { $0 }, "every call ran on the loop's thread")
    #expect(await counter.values == Array(0..<10))
  }

  @Test func aCallbackOnTheLoopsThreadEntersTheIsolationSynchronously() async {
    let counter = await Counter()
    let seen = await withCheckedContinuation { (done: CheckedContinuation<[Int], Never>) in
      // `execute` runs a plain closure on the loop's thread, as a descriptor's report is run.
      DescriptorEventLoop.shared.execute {
        let values = EventLoopActor.assumeIsolated {
          _ = counter.add(7)
          return counter.values
        }
        done.resume(returning: values)
      }
    }
    #expect(seen == [7])
  }
}
