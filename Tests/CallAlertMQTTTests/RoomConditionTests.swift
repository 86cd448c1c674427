import Dispatch
import Foundation
import Testing

@testable import CallAlertMQTT

/// The condition libmosquitto's thread waits on for room: a wait ends at its deadline without a signal,
/// and a signal under the lock wakes a waiter on another thread.
@Suite struct RoomConditionTests {
  @Test func aWaitWithoutASignalEndsAtItsDeadline() {
    let room = RoomCondition()
    room.lock()
    let start = ContinuousClock.now
    let signalled = room.wait(seconds: 0.05)
    let waited = ContinuousClock.now - start
    room.unlock()
    #expect(!signalled)
    #expect(waited >= .milliseconds(40))
  }

  @Test func aSignalWakesTheWaiter() {
    let room = RoomCondition()
    let ready = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let flag = Flag()
    Thread.detachNewThread {
      room.lock()
      ready.signal()
      // The waiter checks its predicate in a loop, as waitForRoom does; each wait is bounded.
      var rounds = 0
      while !flag.isSet, rounds < 200 {
        room.wait(seconds: 0.05)
        rounds += 1
      }
      room.unlock()
      done.signal()
    }
    #expect(ready.wait(timeout: .now() + 10) == .success)
    room.lock()
    flag.set()
    room.signal()
    room.unlock()
    #expect(done.wait(timeout: .now() + 10) == .success)
  }

  /// A flag read and written under the room's lock.
  private final class Flag: @unchecked Sendable {
    private(set) var isSet = false
    func set() { isSet = true }
  }
}
