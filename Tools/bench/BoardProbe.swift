import CallAlertBoardCore
import CallAlertProtocol
import CallAlertSerial
import CallAlertTransport
import CallAlertVirtualBoard
import Dispatch
import Synchronization
import SystemPackage

/// What a virtual board did, each change stamped with ``ContinuousClock`` in the callback that reports it
/// (``VirtualHardware/onChange``, ``VirtualBoard/onPlaybackChange`` and ``VirtualBoard/onEventsAcknowledged``, on
/// the board runner's executor), so the bench compares it with the instant it sent a request on the same clock.
final class BoardProbe: Sendable {
  /// One change.
  enum Change: Sendable, Equatable {
    /// The actuators changed: whether the buzzer or a motor is on, and whether everything (LEDs too) is off.
    case actuators(alerting: Bool, allOff: Bool)
    /// The playing token changed; nil: nothing plays.
    case playback(UInt32?)
    /// The host acknowledged the last event the board raised (``VirtualBoard/onEventsAcknowledged``).
    case eventsAcknowledged
  }

  /// A change and when it happened.
  struct Record: Sendable {
    /// When the callback ran.
    let at: ContinuousClock.Instant
    /// What changed.
    let change: Change

    /// Whether this is an actuator change with the buzzer or a motor on.
    var isAlerting: Bool { if case .actuators(true, _) = change { true } else { false } }
    /// Whether this is an actuator change to everything off.
    var isAllOff: Bool { if case .actuators(_, true) = change { true } else { false } }
    /// Whether something started playing.
    var isPlaying: Bool { if case .playback(let token) = change { token != nil } else { false } }
    /// Whether playing stopped.
    var isSilent: Bool { change == .playback(nil) }
    /// Whether the host had just acknowledged every event the board raised.
    var isEventsAcknowledged: Bool { change == .eventsAcknowledged }
  }

  private struct Waiter {
    let id: Int
    let from: Int
    let predicate: @Sendable (Record) -> Bool
    let wake: Wake
  }

  /// How a waiter is woken: a task's continuation, or the countdown a blocked thread waits on.
  private enum Wake {
    case task(CheckedContinuation<Record?, Never>)
    case countdown(Countdown)

    func callAsFunction(_ record: Record) {
      switch self {
      case .task(let continuation): continuation.resume(returning: record)
      case .countdown(let countdown): countdown.countDown()
      }
    }
  }

  /// A thread blocked in ``waitForAll(_:timeout:where:)``: the last of the probes it waits for wakes it.
  private final class Countdown: Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    private let remaining: Atomic<Int>

    init(_ count: Int) { remaining = Atomic(count) }

    func countDown() {
      if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { semaphore.signal() }
    }
  }

  private struct State {
    var records: [Record] = []
    var waiters: [Waiter] = []
    var nextID = 0
  }

  private let state = Mutex(State())

  /// Watches `board`'s actuators and playback from now on. Call before the board runs.
  func attach(to board: VirtualBoard) {
    board.hardware.onChange = { [self] entry in
      record(
        .actuators(alerting: entry.state.isAlerting, allOff: entry.state == .off(motorCount: entry.state.motors.count)))
    }
    board.onPlaybackChange = { [self] token in record(.playback(token)) }
    board.onEventsAcknowledged = { [self] in record(.eventsAcknowledged) }
  }

  /// The number of changes so far: a mark to wait from.
  var mark: Int { state.withLock { $0.records.count } }

  /// The changes from `mark` on.
  func records(from mark: Int) -> [Record] { state.withLock { Array($0.records[min(mark, $0.records.count)...]) } }

  /// Forgets every change (long runs), returning 0 as the new mark.
  @discardableResult
  func clear() -> Int {
    state.withLock { $0.records.removeAll(keepingCapacity: true) }
    return 0
  }

  /// The first change at index `mark` or later that satisfies `predicate`, waiting up to `timeout` for it.
  func first(
    from mark: Int, timeout: Duration = .seconds(5), where predicate: @escaping @Sendable (Record) -> Bool
  ) async -> Record? {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    let timer = Task { [self] in
      try? await Task.sleep(for: timeout)
      let expired = state.withLock { state -> Waiter? in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return state.waiters.remove(at: index)
      }
      if case .task(let continuation) = expired?.wake { continuation.resume(returning: nil) }
    }
    defer { timer.cancel() }
    return await withCheckedContinuation { continuation in
      let found = state.withLock { state -> Record? in
        if mark < state.records.count, let record = state.records[mark...].first(where: predicate) { return record }
        state.waiters.append(Waiter(id: id, from: mark, predicate: predicate, wake: .task(continuation)))
        return nil
      }
      if let found { continuation.resume(returning: found) }
    }
  }

  /// Blocks the calling thread until every probe has a change from its mark that satisfies `predicate`, up to
  /// `timeout`; true when all did. The client thread is woken once, by the last of them, not once per board:
  /// with 32 boards, 32 wake-ups of the bench's own would have competed with the daemon it measures.
  static func waitForAll(
    _ marks: [(probe: BoardProbe, mark: Int)], timeout: Duration = .seconds(5),
    where predicate: @escaping @Sendable (Record) -> Bool
  ) -> Bool {
    let countdown = Countdown(marks.count + 1)  // + 1: this thread's own, once every waiter is in place
    var registered: [(probe: BoardProbe, id: Int)] = []
    for (probe, mark) in marks {
      let id = probe.state.withLock { state -> Int? in
        if mark < state.records.count, state.records[mark...].contains(where: predicate) { return nil }
        state.nextID += 1
        state.waiters.append(Waiter(id: state.nextID, from: mark, predicate: predicate, wake: .countdown(countdown)))
        return state.nextID
      }
      if let id { registered.append((probe, id)) } else { countdown.countDown() }
    }
    countdown.countDown()
    let milliseconds =
      Int(timeout.components.seconds) * 1_000 + Int(timeout.components.attoseconds / 1_000_000_000_000_000)
    if countdown.semaphore.wait(timeout: .now() + .milliseconds(milliseconds)) == .success { return true }
    for (probe, id) in registered {
      probe.state.withLock { state in state.waiters.removeAll { $0.id == id } }
    }
    return false
  }

  private func record(_ change: Change) {
    let record = Record(at: ContinuousClock.now, change: change)
    let satisfied = state.withLock { state -> [Waiter] in
      state.records.append(record)
      let index = state.records.count - 1
      var ready: [Waiter] = []
      state.waiters.removeAll { waiter in
        guard waiter.from <= index, waiter.predicate(record) else { return false }
        ready.append(waiter)
        return true
      }
      return ready
    }
    for waiter in satisfied { waiter.wake(record) }
  }
}

/// A virtual board on a pseudo-terminal in this process, watched by a ``BoardProbe``.
final class ProbedBoard: Sendable {
  /// The event loop of every probed board: a thread of their own, not the daemon's. The boards stand for
  /// hardware, which computes beside the host; on the daemon's thread, 32 firmware cores would run in series
  /// with the daemon's own work and the fan-out would measure them more than the daemon (the C floor's boards
  /// are threads of their own too). The loop coalesces its sends: each board's answers go out once the loop
  /// has handled everything ready, so that simulating the 32nd board does not wait for 31 answers' writes
  /// (see ``DescriptorEventLoop/init(name:coalescingSends:)``).
  static let loop = DescriptorEventLoop(name: "bench boards", coalescingSends: true)

  /// The board's runner (real time, ContinuousClock).
  let runner: VirtualBoardRunner<ContinuousClock>
  /// The slave side for the host to open.
  let slavePath: String
  /// What the board did.
  let probe = BoardProbe()
  /// The board's end of the line, which the chaos soak can make deaf and mute; nil unless asked for
  /// (`deafenable`): its filter costs a task hop per chunk, which the other sections must not measure.
  let line: DeafeningTransport?
  private let keepAlive: FileDescriptor?
  private let task: Task<Void, any Error>

  /// Creates and starts a board. With `holdingSlave`, the slave stays open in this process too, so that hosts
  /// may close the port and open it again (as `callalert board simulate` does).
  init(serial: String = "VB-0001", holdingSlave: Bool = false, deafenable: Bool = false) throws {
    let (master, slavePath) = try PseudoTerminal.open()
    let loop = Self.loop
    keepAlive = holdingSlave ? try PseudoTerminal.holdOpen(slavePath: slavePath) : nil
    let channel = try DescriptorChannel(taking: master, name: slavePath, loop: loop)
    line = deafenable ? DeafeningTransport(channel, loop: loop) : nil
    let transport: any ByteTransport = line ?? channel
    var configuration = BoardConfiguration.virtualDefault
    configuration.serial = Array(serial.utf8)
    // The probe watches the changes as they come; the board's own timeline keeps only the last few, so that the
    // RSS the fan-out reports after 2 000 calls is the daemon's, not 32 boards' histories.
    let board = VirtualBoard(
      configuration: configuration, seed: UInt64.random(in: 1...UInt64.max), timelineCapacity: 1_024)
    probe.attach(to: board)
    runner = VirtualBoardRunner(board: board, transport: transport, clock: ContinuousClock(), loop: loop)
    self.slavePath = slavePath
    let runner = self.runner
    task = Task(executorPreference: loop) { try await runner.run() }
  }

  /// Stops the board and closes its pseudo-terminal.
  func stop() async {
    await runner.stop()
    _ = await task.result
    try? keepAlive?.close()
  }
}
