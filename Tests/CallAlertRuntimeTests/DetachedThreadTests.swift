import CallAlertRuntime
import Dispatch
import Foundation
import Synchronization
import Testing

/// A detached thread runs its body once, on a thread of its own, named as Foundation's `Thread` named it.
@Suite struct DetachedThreadTests {
  /// What the body saw: its thread's name (from /proc) and whether it ran on the caller's thread.
  private final class Seen: Sendable {
    let name = Mutex<String?>(nil)
    let sameThread = Mutex<Bool?>(nil)
    let done = DispatchSemaphore(value: 0)
  }

  private static func comm() -> String {
    (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
      .trimmingCharacters(in: .newlines) ?? ""
  }

  private static func run(name: String, stackSize: Int? = nil) throws -> Seen {
    let seen = Seen()
    let caller = pthread_self()
    let started = DetachedThread.start(name: name, stackSize: stackSize) {
      seen.name.withLock { $0 = Self.comm() }
      seen.sameThread.withLock { $0 = pthread_equal(pthread_self(), caller) != 0 }
      seen.done.signal()
    }
    #expect(started)
    try #require(seen.done.wait(timeout: .now() + 10) == .success, "the thread never ran its body")
    return seen
  }

  @Test func runsTheBodyOnAThreadOfItsOwnWithItsName() throws {
    let seen = try Self.run(name: "callalert test")
    #expect(seen.name.withLock { $0 } == "callalert test")
    #expect(seen.sameThread.withLock { $0 } == false)
  }

  @Test func aNameLongerThanLinuxKeepsLeavesTheCreatorsName() throws {
    let creator = Self.comm()
    let seen = try Self.run(name: "callalert control client")
    #expect(seen.name.withLock { $0 } == creator)
  }

  @Test func aThreadWithItsOwnStackSizeRuns() throws {
    let seen = try Self.run(name: "callalert stack", stackSize: 1 << 20)
    #expect(seen.name.withLock { $0 } == "callalert stack")
  }
}
