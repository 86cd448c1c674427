import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import CallAlertQemu
import CallAlertSerial
import CallAlertTransport
import CallAlertVirtualBoard
import Foundation
import SystemPackage
import Testing

/// The two boards the conformance suite runs against.
enum BoardKind: String, Sendable, CustomStringConvertible {
  /// ``VirtualBoard`` (the portable core on virtual hardware) run in real time on a pseudo-terminal.
  case virtual
  /// The Embedded Swift firmware (the same core) in QEMU's mps2-an386, its UART0 on a pseudo-terminal.
  case qemu
  /// The micro:bit v1 firmware (the same core on an nRF51822) in QEMU's `microbit`, its UART on a
  /// pseudo-terminal.
  case microbit

  var description: String { rawValue }

  /// The serial number each reports in INFO.
  var serial: String {
    switch self {
    case .virtual: "VB-0001"
    case .qemu: QemuMachine.mps2An386.serial
    case .microbit: QemuMachine.microbit.serial
    }
  }

  /// The capabilities each reports (table capacity: 64 pages of 1 KiB in two A/B halves, minus a commit-record
  /// page each): the reference board's, but for the micro:bit v1's smaller payloads and
  /// window (16 KiB of RAM; see firmware/microbit-v1/Board.swift).
  var capabilities: Capabilities {
    var configuration = BoardConfiguration(serial: [])
    if self == .microbit {
      configuration.maxPayload = 256
      configuration.window = 2
    }
    return configuration.capabilities(tableCapacity: 31 * 1_024, leaseMs: 3_000)
  }

  /// The largest payload it accepts.
  var maxPayload: Int { Int(capabilities.maxPayload) }

  /// The QEMU machine of a firmware board; nil for the virtual board.
  var machine: QemuMachine? {
    switch self {
    case .virtual: nil
    case .qemu: .mps2An386
    case .microbit: .microbit
    }
  }
}

/// A running board of either kind, its host client (HELLO with `traceActuators`), and everything the
/// client reported, in order.
final class BoardUnderTest: Sendable {
  let kind: BoardKind
  let client: BoardClient<ContinuousClock>
  let log: EventLog
  /// INFO from the first handshake.
  let info: BoardInfo
  private let board: RunningBoard

  /// The pseudo-terminal the board's line is on.
  let slavePath: String

  private enum RunningBoard: Sendable {
    case virtual(VirtualBoardRunner<ContinuousClock>, Task<Void, any Error>, keepAlive: FileDescriptor)
    case qemu(RunningQemu, keepAlive: FileDescriptor, machine: QemuMachine)
  }

  private init(
    kind: BoardKind, client: BoardClient<ContinuousClock>, log: EventLog, info: BoardInfo, slavePath: String,
    board: RunningBoard
  ) {
    self.kind = kind
    self.client = client
    self.log = log
    self.info = info
    self.slavePath = slavePath
    self.board = board
  }

  /// Client options: tracing on; otherwise v1's defaults (window 8, lease 3 000 ms renewed every 1 000 ms).
  /// More patient retries than v1's defaults: a QEMU boot on a loaded CI machine can take longer than the
  /// standard 5 tries of about 100 ms each.
  static let options = BoardClientOptions(
    hello: Hello(window: 8, traceActuators: true), timing: LinkTiming(baseTimeoutMs: 200, maxTries: 10))

  /// Boots a fresh board (erased flash) and opens a session with it.
  static func start(_ kind: BoardKind) async throws -> BoardUnderTest {
    let (board, slavePath) = try await launch(kind)
    let client = BoardClient(
      transport: try PseudoTerminal.openSlave(slavePath), clock: ContinuousClock(), options: options)
    let log = EventLog()
    let events = client.events
    Task { for await event in events { await log.append(event) } }
    do {
      let info = try await client.connect()
      return BoardUnderTest(kind: kind, client: client, log: log, info: info, slavePath: slavePath, board: board)
    } catch {
      await client.close()
      await stop(board)
      throw error
    }
  }

  /// Boots a fresh board with nothing connected, runs `body` with the path of its line, and stops it.
  static func withUnconnectedBoard(_ kind: BoardKind, _ body: (String) async throws -> Void) async throws {
    let (board, slavePath) = try await launch(kind)
    do {
      try await body(slavePath)
    } catch {
      await stop(board)
      throw error
    }
    await stop(board)
  }

  /// Holds the board up for about `ms` milliseconds, as an overloaded or descheduled board would be: the
  /// virtual board's runner is blocked on its own executor; QEMU is stopped (SIGSTOP) and continued. The
  /// board's clock runs on meanwhile (QEMU's follows the host's clock without -icount).
  func holdUp(ms: Int) async {
    switch board {
    case .virtual(let runner, _, _):
      await runner.withBoard { _ in usleep(UInt32(ms) * 1_000) }
    case .qemu(let qemu, _, _):
      kill(qemu.pid, SIGSTOP)
      usleep(UInt32(ms) * 1_000)
      kill(qemu.pid, SIGCONT)
    }
  }

  /// Starts a board of `kind` and returns it with the path of its line.
  private static func launch(_ kind: BoardKind) async throws -> (RunningBoard, String) {
    let slavePath: String
    let board: RunningBoard
    switch kind {
    case .virtual:
      let (master, path) = try PseudoTerminal.open()
      let channel = try DescriptorChannel(taking: master, name: path)
      let runner = VirtualBoardRunner(board: VirtualBoard(), transport: channel, clock: ContinuousClock())
      // Held open as `callalert board simulate` does: hosts may come and go without hanging up the board.
      let keepAlive = try PseudoTerminal.holdOpen(slavePath: path)
      board = .virtual(runner, Task { try await runner.run() }, keepAlive: keepAlive)
      slavePath = path
    case .qemu, .microbit:
      let qemu = try await QemuFirmware.launch(kind.machine ?? .mps2An386)
      // Held open for the board's whole life, as `callalert board qemu` does: QEMU then always sees a
      // connected line (it drops what the firmware sends while nothing holds the slave).
      let keepAlive = try PseudoTerminal.holdOpen(slavePath: qemu.pseudoTerminalPath)
      board = .qemu(qemu, keepAlive: keepAlive, machine: kind.machine ?? .mps2An386)
      slavePath = qemu.pseudoTerminalPath
    }
    return (board, slavePath)
  }

  /// Closes the client and stops the board (QEMU by its process id).
  func shutDown() async {
    await client.close()
    await Self.stop(board)
  }

  private static func stop(_ board: RunningBoard) async {
    switch board {
    case .virtual(let runner, let run, let keepAlive):
      await runner.stop()
      _ = await run.result
      try? keepAlive.close()
    case .qemu(let qemu, let keepAlive, let machine):
      let console = await QemuFirmware.stop(qemu)
      try? keepAlive.close()
      // The firmware reports a fault or a watchdog reset on its debug console before it restarts.
      if console.contains("fault") || console.contains("watchdog") {
        Issue.record("the firmware restarted unexpectedly; its debug console:\n\(console)")
      }
      if machine == .microbit { QemuFirmware.checkRAMBudget(console) }
    }
  }

  /// Opens the line again with a second client (v1's defaults, no tracing) and connects it; the caller
  /// closes it.
  func connectAgain() async throws -> (BoardClient<ContinuousClock>, BoardInfo) {
    let client = BoardClient(transport: try PseudoTerminal.openSlave(slavePath), clock: ContinuousClock())
    do {
      return (client, try await client.connect())
    } catch {
      await client.close()
      throw error
    }
  }

  /// Sends a command that must be refused; returns the NAK (a reply or another failure is recorded as an issue).
  func nak(_ command: Command) async -> Nak? {
    do {
      let reply = try await client.send(command)
      Issue.record("\(kind): \(command.type) was answered \(reply), expected a NAK")
    } catch {
      if case .nak(_, let nak) = error { return nak }
      Issue.record("\(kind): \(command.type) failed with \(error), expected a NAK")
    }
    return nil
  }
}

/// Runs `body` with a fresh board of `kind`, and shuts it down afterwards whatever happens.
func withBoard(_ kind: BoardKind, _ body: (BoardUnderTest) async throws -> Void) async throws {
  let board = try await BoardUnderTest.start(kind)
  do {
    try await body(board)
  } catch {
    await board.shutDown()
    throw error
  }
  await board.shutDown()
}

/// Every event a client reported, in order, and waiting for the next one that matches.
actor EventLog {
  private(set) var events: [BoardClientEvent] = []
  private var waiters: [Waiter] = []
  private var nextWaiter = 0

  private struct Waiter {
    let id: Int
    let from: Int
    let predicate: @Sendable (BoardClientEvent) -> Bool
    let continuation: CheckedContinuation<(index: Int, event: BoardClientEvent)?, Never>
  }

  /// The number of events so far: a mark to wait or read from.
  var count: Int { events.count }

  func append(_ event: BoardClientEvent) {
    events.append(event)
    let index = events.count - 1
    var still: [Waiter] = []
    for waiter in waiters {
      if index >= waiter.from && waiter.predicate(event) {
        waiter.continuation.resume(returning: (index, event))
      } else {
        still.append(waiter)
      }
    }
    waiters = still
  }

  /// The first event at or after index `from` that matches; nil if none comes within `seconds` (a guard
  /// against a broken board, never a pause: a matching event ends the wait at once).
  func first(
    from: Int = 0, within seconds: Double = 10, where predicate: @escaping @Sendable (BoardClientEvent) -> Bool
  ) async -> (index: Int, event: BoardClientEvent)? {
    if let index = events.indices.first(where: { $0 >= from && predicate(events[$0]) }) {
      return (index, events[index])
    }
    let id = nextWaiter
    nextWaiter += 1
    let guardTask = Task {
      try await Task.sleep(for: .seconds(seconds))
      self.expire(id)
    }
    defer { guardTask.cancel() }
    return await withCheckedContinuation { continuation in
      waiters.append(Waiter(id: id, from: from, predicate: predicate, continuation: continuation))
    }
  }

  private func expire(_ id: Int) {
    guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
    waiters.remove(at: index).continuation.resume(returning: nil)
  }

  /// The PLAY_ENDED of `token` reported at or after `from`.
  func playEnded(_ token: UInt32, from: Int = 0, within seconds: Double = 10) async -> PlayEndedEvent? {
    let found = await first(from: from, within: seconds) {
      if case .event(.playEnded(let ended)) = $0 { ended.token == token } else { false }
    }
    guard case .event(.playEnded(let ended))? = found?.event else { return nil }
    return ended
  }

  /// The actuator changes traced in `range` of the log, as a timeline in board milliseconds.
  func timeline(_ range: Range<Int>) -> ActuatorTimeline {
    var timeline = ActuatorTimeline()
    for event in events[range.clamped(to: events.indices)] {
      if case .actuators(let trace) = event { timeline.record(trace.state, at: UInt64(trace.boardMs)) }
    }
    return timeline
  }

  /// The actuator changes traced from index `from` on.
  func timeline(from: Int) -> ActuatorTimeline { timeline(from..<events.count) }
}
