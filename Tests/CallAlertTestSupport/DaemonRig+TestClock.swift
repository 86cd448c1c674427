import CallAlertDaemon
import CallAlertProtocol
import CallAlertTransport
import CallAlertVirtualBoard
import Clocks

extension DaemonRig where C == TestClock<Duration> {
  /// Starts the daemon `options` ask for on a new test clock, every configured board in-process on it:
  /// ``start(options:clock:in:inProcessBoards:logger:eventSink:)`` with a `TestClock`.
  public static func onATestClock(
    options: DaemonOptions, eventSink: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws -> DaemonRig {
    try await start(options: options, clock: TestClock(), eventSink: eventSink)
  }

  /// Moves the clock in small steps until something plays on `board` and sounds (`true`), or nothing plays
  /// (`false`), taking the board's changes in order; false when that did not happen within `limit` of virtual
  /// time. A board starts a play's first step at its next tick, which on a test clock comes only when the
  /// clock moves: in real time it came by itself a millisecond later. Then the clock moves a millisecond more.
  public func waitUntil(_ board: Board, playing: Bool, within limit: Duration = .seconds(10)) async -> Bool {
    let playback = board.playback
    let seen = try? await driving(clock, within: limit) {
      for await token in playback where (token != nil) == playing { return true }
      return false
    }
    guard seen == true else { return false }
    guard playing else { return true }
    let runner = board.runner
    let sounds = await advance(within: limit) {
      await runner.withBoard { $0.actuators.isAlerting || !$0.timeline.alertSpans.isEmpty }
    }
    // And a millisecond on, as real time would have moved: a ring stopped within the millisecond it began
    // leaves no entry in the board's timeline (a change at the same millisecond replaces the one before).
    await clock.advance(by: .milliseconds(1))
    await DescriptorEventLoop.shared.caughtUp()
    return sounds
  }

  /// Moves the clock in small steps until `condition` holds; false when it did not within `limit`.
  public func advance(
    within limit: Duration = .seconds(10), until condition: @Sendable () async -> Bool
  ) async
    -> Bool
  {
    await CallAlertTestSupport.advance(clock, within: limit, until: condition) != nil
  }

  /// Shuts the daemon down gracefully, moving the clock while it stops (its boards' last STOPs are timed on
  /// it), and leaves its folder; throws ``DaemonRigError/notStopped`` when it did not stop within `limit` of virtual
  /// time.
  public func shutDown(within limit: Duration = .seconds(10)) async throws {
    await triggerShutdown()
    let rig = self
    let stopped = try await driving(clock, within: limit) { () async throws -> Bool in
      try await rig.stopped()
      return true
    }
    if stopped == nil { throw DaemonRigError.notStopped }
  }
}
