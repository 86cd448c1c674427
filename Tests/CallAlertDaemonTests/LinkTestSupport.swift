import CallAlertDaemon
import CallAlertEngine
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import Clocks
import Foundation
import Logging
import Synchronization
import Testing

/// How many of this process's descriptors are open on `path` (read from /proc/self/fd).
func descriptorsOpen(on path: String) -> Int {
  let directory = "/proc/self/fd"
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
  return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")) == path }
    .count
}

/// A board that speaks just enough of the protocol to open a session and answer the daemon, and can send a
/// flood of events: what a faulty firmware does.
actor ScriptedBoard {
  private var endpoint = LinkEndpoint(role: .board, nonce: 0x5EED, window: 1)
  private let transport: any ByteTransport
  /// Refuse every PLAY (`bad_argument`), as a board whose firmware rejects what the host sends.
  private let refusesPlay: Bool

  init(transport: any ByteTransport, refusesPlay: Bool = false) {
    self.transport = transport
    self.refusesPlay = refusesPlay
  }

  func run() async {
    do {
      for try await chunk in transport.incoming {
        for case .command(let sequence, let command) in endpoint.receive(chunk, now: 0) {
          answer(command, sequence: sequence)
        }
        await flush()
      }
    } catch {}
  }

  /// Sends `count` FAULT events (they go out as the host acknowledges them, a window at a time).
  func flood(_ count: Int, code: FaultCode = .motorDuty) async {
    for _ in 0..<count { endpoint.send(event: .fault(FaultEvent(code, detail: 50)), now: 0) }
    await flush()
  }

  private func answer(_ command: Command, sequence: UInt16) {
    let type = command.type
    let reply: Reply
    switch command {
    case .hello(let hello):
      let terms = SessionTerms.negotiate(
        hostMin: hello.minVersion, hostMax: hello.maxVersion, hostMaxPayload: Int(hello.maxPayload),
        hostWindow: Int(hello.window), boardMin: 1, boardMax: 1, boardMaxPayload: 256, boardWindow: 4)!
      endpoint.answer(sequence: sequence, type: type.rawValue, with: .reply(to: type, .info(Self.info)), now: 0)
      endpoint.openSession(terms, now: 0)
      return
    case .getInfo: reply = .info(Self.info)
    case .getStatus: reply = .status(Self.status)
    case .ping(let bytes): reply = .pong(bytes)
    case .play where refusesPlay:
      endpoint.answer(sequence: sequence, type: type.rawValue, with: .nak(to: type.rawValue, Nak(.badArgument)), now: 0)
      return
    case .play: reply = .playing(capMs: 30_000)
    case .stop: reply = .stopped(count: 0)
    default: reply = .ok
    }
    endpoint.answer(sequence: sequence, type: type.rawValue, with: .reply(to: type, reply), now: 0)
  }

  private func flush() async {
    let out = endpoint.takeOutput()
    if !out.isEmpty { try? await transport.write(out) }
  }

  static let info = BoardInfo(
    minVersion: 1, maxVersion: 1, sessionVersion: 1, firmware: (1, 0, 0), bootNonce: 0x5EED,
    serial: Array("SCRIPTED".utf8),
    capabilities: Capabilities(
      buzzerChannels: 1, buzzerMinHz: 200, buzzerMaxHz: 8_000, motorChannels: 1, leds: 2, buttons: 1,
      patternSlots: 16, maxSteps: 256, maxPayload: 256, window: 4, tableCapacity: 0, motorMaxOnMs: 10_000,
      motorDutyWindowMs: 60_000, motorMaxDutyPercent: 50, leaseMs: 3_000),
    table: TableSummary(version: 0, crc: 0, size: 0))

  static let status = BoardStatus(
    uptimeMs: 0, token: 0, slot: nil, inline: false, elapsedMs: 0, capRemainingMs: 0, leaseRemainingMs: 0,
    actuators: ActuatorState(), indicatorMode: 0, transferActive: false, transferReceived: 0, transferSize: 0,
    counters: LinkCounters())
}

/// An ``AlertService`` on a test clock with one board, "desk": a ``ScriptedBoard`` at the far end of an
/// in-memory pair, connected once the rig is made.
struct ScriptedRig {
  let clock = TestClock()
  let board: ScriptedBoard
  /// The board's end of the line, to write noise on.
  let boardEnd: MemoryTransport
  let log = CapturedLog()
  let service: AlertService<TestClock<Duration>>
  private let boardTask: Task<Void, Never>
  private let running: Task<Void, Never>

  /// Starts the board and the service and waits (two virtual seconds at most) for the board to connect.
  init(refusesPlay: Bool = false) async throws {
    let (hostEnd, boardEnd) = MemoryTransport.pair()
    self.boardEnd = boardEnd
    let board = ScriptedBoard(transport: boardEnd, refusesPlay: refusesPlay)
    self.board = board
    boardTask = Task { await board.run() }
    let handed = HandOut(hostEnd)
    let service = AlertService(
      configuration: EngineConfiguration(boards: [AlertBoard(name: "desk")]),
      connectors: ["desk": { try handed.take() }], clock: clock, logger: log.logger)
    self.service = service
    running = Task { await service.run() }
    let connected = await advance(clock, within: .seconds(2)) { await service.boardLinks()["desk"] == "connected" }
    #expect(connected != nil, "the scripted board connects")
  }

  /// Stops the service, then the board.
  func shutDown() async {
    running.cancel()
    _ = await running.value
    boardEnd.close()
    _ = await boardTask.result
  }
}
