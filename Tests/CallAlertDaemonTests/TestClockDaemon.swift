import CallAlertDaemon
import CallAlertProtocol
import CallAlertSimulation
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import Clocks
import Logging
import ServiceLifecycle
import Synchronization

/// The daemon of `callalert run` (``Daemon/makeServiceGroup(options:clock:logger:signals:eventSink:)``) on a
/// test clock, with its boards in-process on the same clock: every deadline of the daemon and of its boards
/// (link retransmissions, leases, the cap, idle sweeps) waits for the test to move time, so what a test
/// asserts about time holds however loaded the machine is. Requests still travel the real control socket.
final class TestClockDaemon: Sendable {
  /// The daemon's and the boards' clock.
  let clock = TestClock<Duration>()
  private let group: ServiceGroup
  private let running: Task<Void, any Error>
  private let boards: [String: Board]
  /// The in-process lights, by board name.
  let lights: [String: VirtualLight<TestClock<Duration>>]

  /// An in-process board, and what it plays as it changes.
  final class Board: Sendable {
    /// The board's runner, to look at the board (`withBoard`) or its clock (`nowMs`).
    let runner: VirtualBoardRunner<TestClock<Duration>>
    /// The playing token at each change; nil when nothing plays (one consumer).
    let playback: AsyncStream<UInt32?>

    fileprivate init(_ runner: VirtualBoardRunner<TestClock<Duration>>) async {
      self.runner = runner
      let (playback, playing) = AsyncStream.makeStream(of: UInt32?.self)
      self.playback = playback
      await runner.withBoard { $0.onPlaybackChange = { playing.yield($0) } }
    }
  }

  /// Builds the daemon `options` ask for, with every configured board in-process, and runs it.
  init(options: DaemonOptions, eventSink: @escaping @Sendable (String) -> Void = { _ in }) async throws {
    let made = Mutex<[(String, VirtualBoardRunner<TestClock<Duration>>)]>([])
    let lights = Mutex<[String: VirtualLight<TestClock<Duration>>]>([:])
    var options = options
    options.boardSource = .virtualBoards(
      clock: clock, created: { name, runner in made.withLock { $0.append((name, runner)) } },
      createdLight: { name, light in lights.withLock { $0[name] = light } })
    group = try await Daemon.makeServiceGroup(
      options: options, clock: clock, logger: Logger(label: "test"), eventSink: eventSink)
    var boards: [String: Board] = [:]
    for (name, runner) in made.withLock({ $0 }) { boards[name] = await Board(runner) }
    self.boards = boards
    self.lights = lights.withLock { $0 }
    running = Task { [group] in try await group.run() }
  }

  /// The in-process board of that name.
  func board(_ name: String = "desk") -> Board? { boards[name] }

  /// Moves the clock in small steps until something plays on `board` and sounds (`true`), or nothing plays
  /// (`false`), taking the board's changes in order; false when that did not happen within `limit` of virtual
  /// time. A board starts a play's first step at its next tick, which on a test clock comes only when the
  /// clock moves: in real time it came by itself a millisecond later. Then the clock moves a millisecond more.
  func waitUntil(_ board: Board, playing: Bool, within limit: Duration = .seconds(10)) async -> Bool {
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
  func advance(within limit: Duration = .seconds(10), until condition: @Sendable () async -> Bool) async -> Bool {
    await CallAlertTestSupport.advance(clock, within: limit, until: condition) != nil
  }

  /// Shuts the daemon down gracefully, moving the clock while it stops (its boards' last STOPs are timed on
  /// it); throws ``Timeout`` when it did not stop within `limit` of virtual time.
  func shutDown(within limit: Duration = .seconds(10)) async throws {
    await group.triggerGracefulShutdown()
    let running = running
    let stopped = try await driving(clock, within: limit) { () async throws -> Bool in
      try await running.value
      return true
    }
    if stopped == nil { throw Timeout() }
  }

  /// The daemon did not stop in time.
  struct Timeout: Error {}
}
