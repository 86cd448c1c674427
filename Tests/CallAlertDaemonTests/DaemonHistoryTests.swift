import CallAlertControl
import CallAlertDaemon
import CallAlertHistory
import CallAlertSimulation
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// The daemon and its history: the ringing never depends on the disk, and a stop closes what rang.
/// Boards are in-process virtual ones (`--simulate`); waits are on the daemon's own event lines.
@Suite("Daemon and its history", .serialized, .timeLimit(.minutes(1)))
struct DaemonHistoryTests {
  /// A temporary directory with a config naming the socket and the history (or what stands at its path).
  struct Setup {
    let directory: String
    let socket: String
    let history: String
    let config: String

    init() throws {
      directory =
        FileManager.default.temporaryDirectory.appendingPathComponent(
          "callalert-\(UUID().uuidString.prefix(8))"
        ).path
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      socket = directory + "/control.sock"
      history = directory + "/state/history.sqlite"
      config = directory + "/config.yaml"
      let yaml = """
        cap: 20s
        boards:
          - name: desk
        socket:
          path: \(socket)
        history:
          path: \(history)
          keep_days: 30
        """
      try yaml.write(toFile: config, atomically: true, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
  }

  /// A daemon on `setup`, with its event lines as a stream.
  static func daemon(_ setup: Setup) async throws -> (ServiceGroup, AsyncStream<String>, Task<Void, any Error>) {
    let (lines, sink) = AsyncStream.makeStream(of: String.self)
    let group = try await Daemon.makeServiceGroup(
      options: DaemonOptions(
        configPath: setup.config, simulate: true, readStandardInput: false, historyPath: setup.history
      ).withVirtualBoards(),
      logger: Logger(label: "test"), eventSink: { sink.yield($0) })
    let running = Task { try await group.run() }
    return (group, lines, running)
  }

  static func next(_ lines: AsyncStream<String>, containing text: String) async -> String? {
    for await line in lines where line.contains(text) { return line }
    return nil
  }

  @Test func aDirectoryAtTheHistoryPathLeavesTheDaemonRingingAndSaysTheHistoryIsDegraded() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    try FileManager.default.createDirectory(atPath: setup.history, withIntermediateDirectories: true)
    let (group, lines, running) = try await Self.daemon(setup)

    let ack = try await ControlSocketClient.request(#"{"type":"call","id":"c1","name":"Alice"}"#, path: setup.socket)
    #expect(Answer.of(ack)?.isSuccess == true)
    #expect(await Self.next(lines, containing: #""event":"ringing""#) != nil)
    let status = try await ControlSocketClient.request(#"{"type":"status"}"#, path: setup.socket)
    #expect(status.contains(#""id":"c1""#))
    #expect(status.contains(#""history":{"error":"#) && status.contains(#""state":"degraded""#))
    #expect(status.contains("is a folder or a device, not a database file"))

    // `history` is not ok: the ringing call's record waits in memory, and the answer says so.
    let history = try await ControlSocketClient.request(#"{"type":"history"}"#, path: setup.socket)
    #expect(Answer.historyError(Answer.of(history))?.hasPrefix("history degraded (") == true)
    #expect(history.contains("write(s) pending in memory, 0 lost"))

    await group.triggerGracefulShutdown()
    try await running.value
  }

  @Test func theDegradedHistoryIsAnEventLine() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    try FileManager.default.createDirectory(atPath: setup.history, withIntermediateDirectories: true)
    let (group, lines, running) = try await Self.daemon(setup)
    let event = await Self.next(lines, containing: #""event":"history""#)
    #expect(event?.contains(#""state":"degraded""#) == true)
    await group.triggerGracefulShutdown()
    try await running.value
  }

  @Test func aCorruptHistoryIsMovedAsideAndANewOneStarted() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    try FileManager.default.createDirectory(
      atPath: (setup.history as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(repeating: 0x5A, count: 4_096).write(to: URL(fileURLWithPath: setup.history))
    let (group, lines, running) = try await Self.daemon(setup)

    let event = await Self.next(lines, containing: #""event":"history""#)
    #expect(event?.contains(#""moved_aside":"\#(setup.history).corrupt-"#) == true)
    #expect(event?.contains(#""pending":0"#) == true, "published once what waited is written")
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"c1"}"#, path: setup.socket)
    #expect(await Self.next(lines, containing: #""event":"ringing""#) != nil)
    let history = try await ControlSocketClient.request(#"{"type":"history"}"#, path: setup.socket)
    #expect(Answer.of(history)?.isSuccess == true)
    #expect(Answer.historyCallIDs(Answer.of(history))?.contains("c1") == true)
    let kept = try FileManager.default.contentsOfDirectory(
      atPath: (setup.history as NSString).deletingLastPathComponent)
    #expect(kept.contains { $0.hasPrefix("history.sqlite.corrupt-") })

    await group.triggerGracefulShutdown()
    try await running.value
  }

  @Test func aGracefulStopClosesTheRingingCallsAsInterruptedWithTheTimeTheyStopped() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    let (group, lines, running) = try await Self.daemon(setup)
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"c1","caller":"+14155550101"}"#, path: setup.socket)
    #expect(await Self.next(lines, containing: #""event":"ringing""#) != nil)
    let stopping = Date()
    await group.triggerGracefulShutdown()
    try await running.value
    let stopped = Date()

    let record = try #require(try CallHistory(path: setup.history).calls().first)
    #expect(record.id == "c1")
    #expect(record.outcome == .missed && record.reason == "interrupted")
    let ended = try #require(record.endedAt)
    let rang = try #require(record.rangAt)
    // Closed by this stop, with its time: not left for the next start.
    #expect(ended >= stopping.addingTimeInterval(-0.001) && ended <= stopped.addingTimeInterval(0.001))
    #expect(ended >= rang)
  }
}
