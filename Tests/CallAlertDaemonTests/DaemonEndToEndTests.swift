import CallAlertControl
import CallAlertDaemon
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import Foundation
import Synchronization
import Testing

/// The daemon as a user runs it: a config file, requests over the control socket, events out, the history in
/// SQLite; on a test clock, with its board in-process on the same clock (``DaemonRig``), so that the
/// cap's timing is exact however loaded the machine is.
@Suite("Daemon end to end", .serialized, .timeLimit(.minutes(1)))
struct DaemonEndToEndTests {
  /// A temporary directory with a config naming the board, the socket and the history.
  struct Setup {
    let directory: URL
    let socket: String
    let history: String
    let config: String

    init(port: String = "auto") throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "callalert-\(UUID().uuidString.prefix(8))")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      socket = directory.appendingPathComponent("control.sock").path
      history = directory.appendingPathComponent("history.sqlite").path
      config = directory.appendingPathComponent("config.yaml").path
      let yaml = """
        cap: 20s
        boards:
          - name: desk
            port: \(port)
        socket:
          path: \(socket)
        history:
          path: \(history)
        """
      try yaml.write(toFile: config, atomically: true, encoding: .utf8)
    }
  }

  @Test func aCallRingsAndItsHangupSilencesTheBoardOverTheControlSocket() async throws {
    let setup = try Setup()
    let events = Mutex<[String]>([])
    let daemon = try await DaemonRig.onATestClock(
      options: DaemonOptions(configPath: setup.config, readStandardInput: false),
      eventSink: { line in events.withLock { $0.append(line) } })
    let board = try #require(daemon.board())

    // The socket is private to its owner.
    var status = stat()
    #expect(stat(setup.socket, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)

    // A call rings at once, even if the board is still connecting: the engine keeps it until one is there.
    let ack = try await ControlSocketClient.request(
      #"{"type":"call","id":"c1","caller":"+14155550101","name":"Alice"}"#, path: setup.socket)
    #expect(Answer.outcome(ack) != nil)
    #expect(await daemon.waitUntil(board, playing: true))
    #expect(await board.runner.withBoard { $0.actuators.isAlerting || $0.timeline.alertSpans.count > 0 })

    // Bad input is refused with its place, and nothing is lost: the call still rings.
    let refused = try await ControlSocketClient.request(
      #"{"type":"call","id":"c2","level":"urgent"}"#, path: setup.socket)
    #expect(Answer.of(refused)?.isSuccess == false && refused.contains("level") && refused.contains(":1:"))
    let statusLine = try await ControlSocketClient.request(#"{"type":"status"}"#, path: setup.socket)
    #expect(statusLine.contains(#""id":"c1""#))

    // The hangup silences the board.
    _ = try await ControlSocketClient.request(#"{"type":"hangup","id":"c1"}"#, path: setup.socket)
    #expect(await daemon.waitUntil(board, playing: false))
    #expect(await board.runner.withBoard { !$0.actuators.isAlerting })

    // The history has the call, hung up.
    let history = try await ControlSocketClient.request(#"{"type":"history"}"#, path: setup.socket)
    #expect(history.contains(#""id":"c1""#) && history.contains("hung-up"))
    #expect(events.withLock { $0.contains { $0.contains(#""event":"ringing""#) } })
    #expect(events.withLock { $0.contains { $0.contains(#""event":"stopped""#) && $0.contains("hangup") } })

    try await daemon.shutDown()
    #expect(!FileManager.default.fileExists(atPath: setup.socket))
  }

  @Test func theCapEndsACallAndTheMissedCallSurvivesARestart() async throws {
    let setup = try Setup()
    let options = DaemonOptions(configPath: setup.config, readStandardInput: false)
    let daemon = try await DaemonRig.onATestClock(options: options)
    let board = try #require(daemon.board())
    // First make sure the board is connected: a call rings, and is answered.
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"first"}"#, path: setup.socket)
    #expect(await daemon.waitUntil(board, playing: true))
    _ = try await ControlSocketClient.request(#"{"type":"answered"}"#, path: setup.socket)
    #expect(await daemon.waitUntil(board, playing: false))
    // Sent 19 s ago under a 20 s cap: it may ring for 1 s only, and the board ends it by its own cap too. The
    // lateness is on the wall clock, which the test clock does not stop: 19 s, not less, leaves the request a
    // second of real time to arrive before the call has rung out. Unix milliseconds: ISO 8601 without a fraction would round the lateness by up to a second.
    let sentAt = Int64((Date().timeIntervalSince1970 - 19) * 1_000)
    let before = await board.runner.nowMs
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"late","sent_at":\#(sentAt)}"#, path: setup.socket)
    #expect(await daemon.waitUntil(board, playing: true))
    #expect(await daemon.waitUntil(board, playing: false))
    let rang = await board.runner.withBoard { board in
      board.timeline.alertSpans.filter { $0.start >= before }.map { ($0.end ?? 0) - $0.start }.reduce(0, +)
    }
    // 1 s at most by the cap, less the real time the request took on the wall clock; the clock only moves
    // in the test's steps, so no wake-up jitter is added. Without the sent-at rule it would ring 20 s.
    #expect(rang > 0 && rang <= 1_000 + 150, "rang \(rang) ms")
    let missed = try await ControlSocketClient.request(#"{"type":"history","missed":true}"#, path: setup.socket)
    #expect(missed.contains(#""id":"late""#))
    try await daemon.shutDown()

    // A new daemon on the same history: the missed call is still there, unacknowledged.
    let again = try await DaemonRig.onATestClock(options: options)
    let status = try await ControlSocketClient.request(#"{"type":"status"}"#, path: setup.socket)
    #expect(status.contains(#""missed":[{"#) && status.contains("late"))
    try await again.shutDown()
  }
}
