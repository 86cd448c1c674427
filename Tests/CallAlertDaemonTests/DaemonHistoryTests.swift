import CallAlertControl
import CallAlertDaemon
import CallAlertHistory
import CallAlertSimulation
import CallAlertTestSupport
import CallAlertValues
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The daemon and its history: the ringing never depends on the disk, and a stop closes what rang.
/// Boards are in-process virtual ones (`--simulate`), on the daemon's test clock but for the load test, which
/// runs in real time beside spinning threads; waits are on the daemon's own event lines.
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

  /// A daemon on `setup` on a test clock, its board in-process on the same clock (``TestClockDaemon``), with
  /// its event lines as a stream. The history's own waits (its batching, its file checks) stay on its threads.
  static func daemonOnATestClock(_ setup: Setup) async throws -> (TestClockDaemon, AsyncStream<String>) {
    let (lines, sink) = AsyncStream.makeStream(of: String.self)
    let daemon = try await TestClockDaemon(
      options: DaemonOptions(
        configPath: setup.config, simulate: true, readStandardInput: false, historyPath: setup.history),
      eventSink: { sink.yield($0) })
    return (daemon, lines)
  }

  static func next(_ lines: AsyncStream<String>, containing text: String) async -> String? {
    for await line in lines where line.contains(text) { return line }
    return nil
  }

  @Test func aDirectoryAtTheHistoryPathLeavesTheDaemonRingingAndSaysTheHistoryIsDegraded() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    try FileManager.default.createDirectory(atPath: setup.history, withIntermediateDirectories: true)
    let (daemon, lines) = try await Self.daemonOnATestClock(setup)

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

    try await daemon.shutDown()
  }

  @Test func theDegradedHistoryIsAnEventLine() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    try FileManager.default.createDirectory(atPath: setup.history, withIntermediateDirectories: true)
    let (daemon, lines) = try await Self.daemonOnATestClock(setup)
    let event = await Self.next(lines, containing: #""event":"history""#)
    #expect(event?.contains(#""state":"degraded""#) == true)
    try await daemon.shutDown()
  }

  @Test func aCorruptHistoryIsMovedAsideAndANewOneStarted() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    try FileManager.default.createDirectory(
      atPath: (setup.history as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(repeating: 0x5A, count: 4_096).write(to: URL(fileURLWithPath: setup.history))
    let (daemon, lines) = try await Self.daemonOnATestClock(setup)

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

    try await daemon.shutDown()
  }

  @Test func aGracefulStopClosesTheRingingCallsAsInterruptedWithTheTimeTheyStopped() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    let (daemon, lines) = try await Self.daemonOnATestClock(setup)
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"c1","caller":"+14155550101"}"#, path: setup.socket)
    #expect(await Self.next(lines, containing: #""event":"ringing""#) != nil)
    let stopping = Date()
    try await daemon.shutDown()
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
  /// The file removed (or replaced) while the daemon runs: noticed within seconds (the daemon checks every
  /// 2 s), made again with every call, the unacknowledged missed one included; the log, an event line and
  /// `status` say so, and after the stop the file holds it all.
  @Test(arguments: [false, true])
  func aHistoryFileRemovedOrReplacedWhileTheDaemonRunsIsMadeAgainWithEveryCall(replaced: Bool) async throws {
    let setup = try Setup()
    defer { setup.remove() }
    let (daemon, lines) = try await Self.daemonOnATestClock(setup)
    // A passive call is held back and missed at once; nobody acknowledges it.
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"m1","level":"passive"}"#, path: setup.socket)
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"c1"}"#, path: setup.socket)
    _ = try await ControlSocketClient.request(#"{"type":"hangup","id":"c1"}"#, path: setup.socket)
    let before = try await ControlSocketClient.request(#"{"type":"history"}"#, path: setup.socket)
    #expect(Answer.historyCallIDs(Answer.of(before)) == ["c1", "m1"])

    if replaced {
      try Data("someone else's file".utf8).write(to: URL(fileURLWithPath: setup.history + ".new"))
      #expect(rename(setup.history + ".new", setup.history) == 0)
    } else {
      for file in [setup.history] + CallHistoryFiles.companionSuffixes.map({ setup.history + $0 }) {
        #expect(unlink(file) == 0)
      }
    }
    let removedAt = ContinuousClock.now
    let event = await finishing(within: 10) { await Self.next(lines, containing: #""recreated""#) } ?? nil
    let noticedAfter = removedAt.duration(to: .now)
    let line = try #require(event, "noticed within 10 s")
    #expect(noticedAfter < .seconds(5), "the check runs every 2 s")
    #expect(line.contains(replaced ? #""reason":"replaced""# : #""reason":"removed""#))
    #expect(line.contains(#""calls":2"#) && line.contains(#""state":"ok""#))

    let status = try await ControlSocketClient.request(#"{"type":"status"}"#, path: setup.socket)
    #expect(status.contains(#""recreated":{"#))
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"c2"}"#, path: setup.socket)
    _ = try await ControlSocketClient.request(#"{"type":"hangup","id":"c2"}"#, path: setup.socket)
    let after = try await ControlSocketClient.request(#"{"type":"history"}"#, path: setup.socket)
    #expect(Answer.of(after)?.isSuccess == true)
    #expect(Answer.historyCallIDs(Answer.of(after)) == ["c2", "c1", "m1"])
    try await daemon.shutDown()

    let onDisk = try CallHistory.reading(path: setup.history)
    #expect(try onDisk.unacknowledgedMissed().map(\.id) == ["m1"], "the missed call blinks again at the next start")
    #expect(try onDisk.calls().map(\.id) == ["c2", "c1", "m1"])
    if replaced {
      let folder = (setup.history as NSString).deletingLastPathComponent
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder).contains { $0.contains(".replaced-") })
    }
  }

  /// Calls and hangups pipelined on one connection as fast as the daemon takes them, with two threads
  /// spinning beside it as two CPU-bound processes would: every call is in the history with its outcome,
  /// nothing lost, none left ringing to become a false missed call at the stop. (On main: 5 128 of 10 000
  /// calls in the history, over 9 000 writes dropped, hung-up calls closed as missed; 37 s.)
  @Test func callsAndHangupsAsFastAsTheSocketTakesThemAreAllInTheHistory() async throws {
    let setup = try Setup()
    defer { setup.remove() }
    let (group, _, running) = try await Self.daemon(setup)
    let pairs = 10_000
    let spinning = Atomic<Bool>(true)
    for _ in 0..<2 {
      Thread {
        var counter = 0
        while spinning.load(ordering: .relaxed) { counter &+= 1 }
      }.start()
    }
    defer { spinning.store(false, ordering: .relaxed) }
    let client = try RawClient(setup.socket, timeout: .seconds(30))
    defer { client.close() }
    let began = ContinuousClock.now
    let sender = Task {
      await onThread {
        for first in stride(from: 0, to: pairs, by: 100) {
          var text = ""
          for index in first..<min(first + 100, pairs) {
            text +=
              #"{"type":"call","id":"load-\#(index)"}"# + "\n" + #"{"type":"hangup","id":"load-\#(index)"}"# + "\n"
          }
          guard client.send(Array(text.utf8)).errno == 0 else { return false }
        }
        client.shutdownWrite()
        return true
      }
    }
    let (answers, ended) = await onThread { client.readToEnd() }
    #expect(await sender.value)
    #expect(ended)
    let seconds = began.duration(to: .now)
    let answerLines = answers.split(separator: "\n")
    #expect(answerLines.count == 2 * pairs)
    #expect(answerLines.allSatisfy { Answer.of(String($0))?.isSuccess == true })
    let status = try await ControlSocketClient.request(#"{"type":"status"}"#, path: setup.socket)
    #expect(status.contains(#""lost":0"#))
    await group.triggerGracefulShutdown()
    try await running.value

    spinning.store(false, ordering: .relaxed)
    let rows = try CallHistory.reading(path: setup.history).calls(limit: 2 * pairs)
    #expect(rows.count == pairs)
    #expect(rows.allSatisfy { $0.outcome == .hungUp && !$0.missed }, "none left ringing, none missed")
    #expect(seconds < .seconds(20))
    print("daemon history under load: \(pairs) pairs over one connection in \(seconds)")
  }
}
