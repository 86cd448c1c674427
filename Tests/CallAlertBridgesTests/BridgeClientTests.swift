import CallAlertBridges
import CallAlertEngine
import CallAlertSerial
import CallAlertTransport
import CallAlertValues
import Clocks
import Foundation
import Synchronization
import Testing

/// The client's reconnection, login and stream handling, over in-memory pipes and on a test clock.
@Suite("Bridge client", .timeLimit(.minutes(1)))
struct BridgeClientTests {
  /// A connector that hands out prepared pipe ends (or fails), announcing each attempt.
  final class Connections: Sendable {
    let attempts: AsyncStream<Int>
    private let announce: AsyncStream<Int>.Continuation
    private let ends = Mutex<[MemoryTransport?]>([])
    private let count = Mutex(0)

    init() { (attempts, announce) = AsyncStream.makeStream(of: Int.self) }

    /// The next attempt gets this end; nil: it fails.
    func prepare(_ end: MemoryTransport?) { ends.withLock { $0.append(end) } }

    var connector: BridgeClient<TestClock<Duration>>.Connector {
      { [self] _, _ in
        let number = count.withLock {
          $0 += 1; return $0
        }
        let end = ends.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        announce.yield(number)
        guard let end else { throw BridgeConnectError("connection refused") }
        return end
      }
    }
  }

  /// What the client reported and delivered, as streams.
  final class Sink: Sendable {
    let reports: AsyncStream<BridgeReport>
    let inputs: AsyncStream<EngineInput>
    let report: AsyncStream<BridgeReport>.Continuation
    let input: AsyncStream<EngineInput>.Continuation
    init() {
      (reports, report) = AsyncStream.makeStream(of: BridgeReport.self)
      (inputs, input) = AsyncStream.makeStream(of: EngineInput.self)
    }
  }

  static func client(
    _ source: BridgeSource, _ clock: TestClock<Duration>, _ connections: Connections, _ sink: Sink,
    secret: String = "s3cret"
  ) -> BridgeClient<TestClock<Duration>> {
    BridgeClient(
      source: source, region: "DE", clock: clock, connector: connections.connector, readSecret: { _ in secret },
      deliver: { sink.input.yield($0) }, report: { sink.report.yield($0) })
  }

  static let box = BridgeSource(name: "box", kind: .fritzbox, host: "fritz.box")

  /// The next report that is not a notification.
  static func nextReport(_ iterator: inout AsyncStream<BridgeReport>.Iterator) async -> BridgeReport? {
    while let report = await iterator.next() {
      if case .notification = report { continue }
      return report
    }
    return nil
  }

  @Test func retriesFastFirstThenDoublingUpToAMinute() async throws {
    let clock = TestClock()
    let connections = Connections()
    let sink = Sink()
    let client = Self.client(Self.box, clock, connections, sink)
    let running = Task { await client.run() }
    var attempts = connections.attempts.makeAsyncIterator()
    var reports = sink.reports.makeAsyncIterator()
    var delays: [Duration] = []
    for _ in 0..<9 {
      _ = await attempts.next()
      guard case .failing(let reason, let retryIn) = await Self.nextReport(&reports) else {
        Issue.record("no failure reported"); return
      }
      #expect(reason.contains("connection refused"))
      delays.append(retryIn)
      let health = await client.health
      #expect(health.state == .failing && health.nextAttemptIn == retryIn && health.reason == reason)
      await clock.advance(by: retryIn)
    }
    #expect(delays == [0.5, 1, 2, 4, 8, 16, 32, 60, 60].map { Duration.milliseconds(Int64($0 * 1_000)) })
    running.cancel()
    await running.value
  }

  @Test func aConnectionThatWorkedStartsTheBackoffAgainAndCallsGoOnAcrossIt() async throws {
    let clock = TestClock()
    let connections = Connections()
    let sink = Sink()
    let (first, firstBox) = MemoryTransport.pair()
    let (second, secondBox) = MemoryTransport.pair()
    connections.prepare(nil)
    connections.prepare(first)
    connections.prepare(second)
    let client = Self.client(Self.box, clock, connections, sink)
    let running = Task { await client.run() }
    var reports = sink.reports.makeAsyncIterator()
    var inputs = sink.inputs.makeAsyncIterator()
    guard case .failing(_, let retryIn) = await Self.nextReport(&reports) else { Issue.record("no failure"); return }
    await clock.advance(by: retryIn)
    #expect(await Self.nextReport(&reports) == .connected("connected to fritz.box:1012"))
    #expect(await client.health == BridgeHealth(state: .connected))
    try await firstBox.write(Array("23.11.26 22:10:00;RING;0;030123456;987654;SIP0;\n".utf8))
    #expect(await inputs.next() == .call(IncomingCall(id: "box:0/261123-221000", callerNumber: "030123456")))
    firstBox.close()  // the box restarts
    guard case .failing(let reason, let delay) = await Self.nextReport(&reports) else {
      Issue.record("no loss"); return
    }
    #expect(reason == "the connection was closed by fritz.box:1012" && delay == .milliseconds(500))
    await clock.advance(by: delay)
    #expect(await Self.nextReport(&reports) == .connected("connected to fritz.box:1012"))
    try await secondBox.write(Array("23.11.26 22:10:45;RING;0;089555111;987654;SIP0;\n".utf8))
    #expect(await inputs.next() == .unanswered(callID: "box:0/261123-221000"))
    #expect(await inputs.next() == .call(IncomingCall(id: "box:0/261123-221045", callerNumber: "089555111")))
    running.cancel()
    await running.value
  }

  @Test func aLineThatDoesNotParseIsReportedWithItsOffsetAndTheStreamGoesOn() async throws {
    let clock = TestClock()
    let connections = Connections()
    let sink = Sink()
    let (end, box) = MemoryTransport.pair()
    connections.prepare(end)
    let client = Self.client(Self.box, clock, connections, sink)
    let running = Task { await client.run() }
    var reports = sink.reports.makeAsyncIterator()
    var inputs = sink.inputs.makeAsyncIterator()
    _ = await Self.nextReport(&reports)
    try await box.write(Array("garbage;\n\u{1}\u{2}\n23.11.26 22:10:00;RING;4;;987654;SIP0;\n".utf8))
    guard case .unreadable(let offset, _) = await Self.nextReport(&reports) else {
      Issue.record("not reported"); return
    }
    #expect(offset == 0)
    guard case .unreadable(let second, _) = await Self.nextReport(&reports) else {
      Issue.record("not reported"); return
    }
    #expect(second == 9)
    #expect(await inputs.next() == .call(IncomingCall(id: "box:4/261123-221000")))
    running.cancel()
    await running.value
  }

  static let pbx = BridgeSource(
    name: "pbx", kind: .ami, host: "pbx.local", username: "callalert", secretFile: "/etc/callalert/ami.secret",
    endpoints: ["PJSIP/201"])

  @Test func amiLogsInWithTheSecretAndReportsARefusalAsTheFailure() async throws {
    let clock = TestClock()
    let connections = Connections()
    let sink = Sink()
    let (end, pbx) = MemoryTransport.pair()
    connections.prepare(end)
    let client = Self.client(Self.pbx, clock, connections, sink)
    let running = Task { await client.run() }
    var reports = sink.reports.makeAsyncIterator()
    var received = pbx.incoming.makeAsyncIterator()
    var login: [UInt8] = []
    while !login.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)), let chunk = try await received.next() {
      login += chunk
    }
    let text = String(decoding: login, as: UTF8.self)
    #expect(text.hasPrefix("Action: Login\r\n") && text.contains("Username: callalert\r\n"))
    #expect(text.contains("Secret: s3cret\r\n") && text.contains("Events: call\r\n"))
    try await pbx.write(
      Array(
        "Asterisk Call Manager/5.0.1\r\nResponse: Error\r\nActionID: callalert-login\r\nMessage: Authentication failed\r\n\r\n"
          .utf8))
    guard case .failing(let reason, _) = await Self.nextReport(&reports) else { Issue.record("no failure"); return }
    #expect(reason == "AMI refused the login of 'callalert': Authentication failed")
    #expect(await client.health.reason == reason)
    running.cancel()
    await running.value
  }

  @Test func amiErrorsToOtherActionsAreReportedAndEventsBeforeTheLoginAreNotTaken() async throws {
    let clock = TestClock()
    let connections = Connections()
    let sink = Sink()
    let (end, pbx) = MemoryTransport.pair()
    connections.prepare(end)
    let client = Self.client(Self.pbx, clock, connections, sink)
    let running = Task { await client.run() }
    var reports = sink.reports.makeAsyncIterator()
    var inputs = sink.inputs.makeAsyncIterator()
    let ringing = "Event: Newstate\r\nChannel: PJSIP/201-1\r\nChannelState: 5\r\nUniqueid: 2.2\r\nLinkedid: 2.1\r\n\r\n"
    try await pbx.write(Array(("Asterisk Call Manager/5.0.1\r\n" + ringing).utf8))
    try await pbx.write(
      Array("Response: Success\r\nActionID: callalert-login\r\nMessage: Authentication accepted\r\n\r\n".utf8))
    #expect(await Self.nextReport(&reports) == .connected("logged in to pbx.local:5038 as callalert"))
    try await pbx.write(Array("Response: Error\r\nActionID: 7\r\nMessage: Permission denied\r\n\r\n".utf8))
    #expect(await Self.nextReport(&reports) == .refused("Permission denied"))
    try await pbx.write(Array(ringing.replacingOccurrences(of: "2.1", with: "3.1").utf8))
    #expect(await inputs.next() == .call(IncomingCall(id: "pbx:3.1")))
    running.cancel()
    await running.value
  }
}

@Suite("AMI secret file")
struct SecretFileTests {
  static func file(_ text: String, mode: mode_t) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("ami-\(UUID().uuidString.prefix(8))").path
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    chmod(path, mode)
    return path
  }

  @Test func readsTheFirstLineOfAPrivateFile() throws {
    #expect(try SecretFile.read(try Self.file("s3cret\nignored\n", mode: 0o600)) == "s3cret")
    #expect(try SecretFile.read(try Self.file("s3cret", mode: 0o400)) == "s3cret")
  }

  @Test(arguments: [0o644, 0o640, 0o604] as [mode_t])
  func refusesAFileOthersMayRead(mode: mode_t) throws {
    let path = try Self.file("s3cret\n", mode: mode)
    #expect {
      _ = try SecretFile.read(path)
    } throws: { error in
      "\(error)".contains("may be read by others") && "\(error)".contains("chmod 600 \(path)")
    }
  }

  @Test func refusesAMissingOrEmptyFile() throws {
    #expect(throws: BridgeConnectError.self) { try SecretFile.read("/nonexistent/ami.secret") }
    let empty = try Self.file("\n", mode: 0o600)
    #expect(throws: BridgeConnectError.self) { try SecretFile.read(empty) }
  }
}
