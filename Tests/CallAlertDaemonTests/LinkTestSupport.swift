import CallAlertProtocol
import CallAlertSerial
import CallAlertTransport
import Clocks
import Foundation
import Logging
import Synchronization

/// Log lines, kept for assertions.
final class CapturedLog: Sendable {
  private let lines = Mutex<[(level: Logger.Level, text: String)]>([])

  var logger: Logger {
    var logger = Logger(label: "test") { _ in Handler(log: self) }
    logger.logLevel = .trace
    return logger
  }

  func record(_ level: Logger.Level, _ text: String) { lines.withLock { $0.append((level, text)) } }

  /// Every line, as "level message".
  var all: [String] { lines.withLock { $0.map { "\($0.level) \($0.text)" } } }

  /// The lines that contain `text`.
  func matching(_ text: String) -> [String] { lines.withLock { $0.map(\.text).filter { $0.contains(text) } } }

  struct Handler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      log.record(event.level, "\(event.message)")
    }
  }
}

/// A board-side transport whose wire can go silent both ways while the port stays open.
final class SilenceableLine: ByteTransport, Sendable {
  let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let inner: any ByteTransport
  private let silent = Mutex(false)

  init(wrapping inner: any ByteTransport) {
    self.inner = inner
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    incoming = stream
    Task { [self] in
      do {
        for try await chunk in inner.incoming where !silent.withLock({ $0 }) { continuation.yield(chunk) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
  }

  func silence(_ on: Bool) { silent.withLock { $0 = on } }

  func write(_ bytes: [UInt8]) async throws {
    if silent.withLock({ $0 }) { return }
    try await inner.write(bytes)
  }

  func close() { inner.close() }
}

/// Hands a transport out once.
final class HandOut: Sendable {
  private let value: Mutex<(any ByteTransport)?>
  init(_ transport: any ByteTransport) { value = Mutex(transport) }
  func take() throws -> any ByteTransport {
    guard
      let transport = value.withLock({ current in
        defer { current = nil }; return current
      })
    else {
      throw SerialPortError(code: .noSuchPort, port: "handed out")
    }
    return transport
  }
}

/// Advances `clock` in `step`s until `condition` holds; the virtual time it took, or nil past `limit`.
func advance(
  _ clock: TestClock<Duration>, by step: Duration = .milliseconds(10), within limit: Duration,
  until condition: () async -> Bool
) async -> Duration? {
  var elapsed = Duration.zero
  while elapsed <= limit {
    if await condition() { return elapsed }
    await clock.advance(by: step)
    elapsed += step
  }
  return nil
}

/// Runs `body`, giving up after `seconds` (a watchdog, so a regression fails instead of waiting for the
/// suite's time limit); nil when it did not finish.
func finishing<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
  await withTaskGroup(of: T?.self) { group in
    group.addTask { await body() }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}

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
