import CallAlertDaemon
import CallAlertProtocol
import CallAlertTestSupport
import CallAlertText
import CallAlertVirtualBoard
import Foundation
import Logging
import Testing

/// End to end: the daemon with a `sources:` config listens to a fake FRITZ!Box or Asterisk on
/// loopback replaying a documented call flow; the virtual board (behind a pseudo-terminal) rings and stops,
/// the history records each call's outcome, and `status` shows the source's health.
@Suite("Phone-system sources, end to end", .serialized, .timeLimit(.minutes(1)))
struct BridgeEndToEndTests {
  typealias Rig = DaemonEndToEndTests

  /// A flow, the source's kind, and each call's outcome in the history afterwards.
  struct Flow: Sendable, CustomTestStringConvertible {
    var file: String
    var outcomes: [(id: String, outcome: String)]
    var testDescription: String { file }
  }

  static let flows = [
    Flow(file: "fritzbox-ring-answered.txt", outcomes: [("0/261123-214604", "answered")]),
    Flow(file: "fritzbox-ring-cancelled.txt", outcomes: [("1/261123-214800", "missed")]),
    Flow(file: "fritzbox-ring-to-cap.txt", outcomes: [("2/261123-215000", "missed")]),
    Flow(
      file: "fritzbox-two-overlapping.txt", outcomes: [("0/261123-220000", "answered"), ("1/261123-220003", "missed")]),
    Flow(
      file: "fritzbox-server-restart.txt", outcomes: [("0/261123-221000", "missed"), ("0/261123-221045", "answered")]),
    Flow(file: "ami-ring-answered.txt", outcomes: [("1700000000.1", "answered")]),
    Flow(file: "ami-ring-cancelled.txt", outcomes: [("1700000100.3", "missed")]),
    Flow(file: "ami-ring-to-cap.txt", outcomes: [("1700000200.5", "missed")]),
    Flow(file: "ami-two-overlapping.txt", outcomes: [("1700000300.10", "answered"), ("1700000301.12", "missed")]),
    Flow(file: "ami-transfer.txt", outcomes: [("1700000400.20", "answered"), ("1700000400.20#2", "answered")]),
    Flow(file: "ami-server-restart.txt", outcomes: [("1700000500.30", "missed"), ("1700000600.1", "missed")]),
    Flow(file: "ami-hints.txt", outcomes: [("201@ext-local#1", "answered"), ("201@ext-local#2", "missed")]),
  ]

  /// The config of ``DaemonEndToEndTests/Setup`` with one source on the fake server; with `shortCap`, a 2 s cap
  /// instead of 20 s, for the flows that wait for a call to ring to its cap. The others keep 20 s: a machine
  /// that holds the test up for seconds must not turn their answered calls into calls missed at the cap.
  static func configure(
    _ setup: Rig.Setup, kind: String, port: Int, shortCap: Bool = true, extra: String = ""
  ) throws -> String {
    var yaml = try String(contentsOfFile: setup.config, encoding: .utf8)
    if shortCap { yaml = yaml.replacingOccurrences(of: "cap: 20s", with: "cap: 2s") }
    if kind == "fritzbox" {
      yaml += "\nsources:\n  - name: box\n    kind: fritzbox\n    host: 127.0.0.1\n    port: \(port)\n"
    } else {
      let secret = setup.directory.appendingPathComponent("ami.secret").path
      try "s3cret\n".write(toFile: secret, atomically: false, encoding: .utf8)
      chmod(secret, 0o600)
      yaml += """

        sources:
          - name: box
            kind: ami
            host: 127.0.0.1
            port: \(port)
            username: callalert
            secret_file: \(secret)
            endpoints: [PJSIP/201, PJSIP/202]
            extensions: [201@ext-local]

        """
    }
    try (yaml + extra).write(toFile: setup.config, atomically: true, encoding: .utf8)
    return setup.config
  }

  /// Waits for the daemon's event line that shows it acted on a checkpoint; nil when none is needed.
  static func awaited(_ checkpoint: FakePhoneServer.Step, stopped: Set<String>) -> (id: String, words: [String])? {
    switch checkpoint {
    case .expect(let text):
      let parts = text.split(separator: " ").map(String.init)
      let id = "box:" + parts[1]
      switch parts[0] {
      case "ringing": return (id, [#""event":"ringing""#])
      case "answered": return (id, [#""event":"stopped""#, #""reason":"answered""#])
      case "ended" where parts[2] == "missed" && !stopped.contains(id):
        return (id, [#""event":"stopped""#, #""reason":"unanswered""#])
      default: return nil
      }
    case .cap(let call): return ("box:" + call, [#""event":"missed""#, #""reason":"cap""#])
    default: return nil
    }
  }

  @Test(arguments: flows)
  func aDocumentedFlowRingsTheBoardAndLandsInTheHistory(_ flow: Flow) async throws {
    let board = try PseudoTerminalBoard()
    let setup = try Rig.Setup(port: board.slavePath)
    let steps = try FakePhoneServer.steps(flow.file)
    let server = try FakePhoneServer(playing: steps)
    let ringsToItsCap = steps.contains { if case .cap = $0 { true } else { false } }
    let config = try Self.configure(
      setup, kind: flow.file.hasPrefix("ami") ? "ami" : "fritzbox", port: server.port, shortCap: ringsToItsCap)
    let (lines, sink) = AsyncStream.makeStream(of: String.self)
    let daemon = try await DaemonRig.start(
      options: DaemonOptions(configPath: config, readStandardInput: false), inProcessBoards: false,
      logger: Logger(label: "test"), eventSink: { sink.yield($0) })

    var events = lines.makeAsyncIterator()
    var stopped: Set<String> = []
    var rang = false
    var changes = board.changes.makeAsyncIterator()
    for await checkpoint in server.checkpoints {
      if let (id, words) = Self.awaited(checkpoint, stopped: stopped) {
        var seen = false
        while let line = await events.next() {
          if line.contains(#""event":"stopped""#) || line.contains(#""event":"missed""#) {
            if let range = line.range(of: #""id":"box:[^"]*""#, options: .regularExpression) {
              stopped.insert(String(line[range].dropFirst(6).dropLast()))
            }
          }
          if line.contains(#""id":"\#(id)""#) && words.allSatisfy(line.contains) {
            seen = true
            break
          }
        }
        #expect(seen, "\(flow.file): no event for \(checkpoint)")
        // The first ring sounds on the board before the flow goes on (it may still be connecting).
        if !rang, case .expect(let text) = checkpoint, text.hasPrefix("ringing") {
          while let change = await changes.next() {
            if change.state.isAlerting {
              rang = true
              break
            }
          }
        }
      }
      server.proceed()
    }
    #expect(server.failure == nil, "\(flow.file): \(server.failure ?? "")")
    if flow.file.hasPrefix("ami") {
      #expect(server.logins.allSatisfy { $0.contains("Username: callalert\r\n") && $0.contains("Secret: s3cret\r\n") })
    }

    // The board rang and is silent again.
    #expect(rang, "\(flow.file): the board never sounded")
    // Every call ended, so the board falls silent once it has played each call that rang: the daemon's
    // events run ahead of the board's commands, and a silence seen before the last call's PLAY arrived is no
    // end (a ring whose slot the board refused plays a moment later, its fallback; CI once caught the board
    // between two calls). So the board's playback is followed until it has played as many calls as rang and
    // then nothing; the suite's time limit bounds the wait.
    let rings = try FakePhoneServer.steps(flow.file).filter {
      if case .expect(let text) = $0 { text.hasPrefix("ringing") } else { false }
    }.count
    var played = Set<UInt32>()
    var playing: UInt32? = nil
    var playback = board.playback.makeAsyncIterator()  // every change since the board started
    while played.count < rings || playing != nil, let token = await playback.next() {
      if let token { played.insert(token) }
      playing = token
    }
    #expect(played.count >= rings && playing == nil, "\(flow.file): played \(played.count) of \(rings)")
    #expect(await board.runner.withBoard { $0.playingToken == nil && !$0.actuators.isAlerting })
    // The history: every call with its outcome.
    let history = try await ControlSocketClient.request(#"{"type":"history"}"#, path: setup.socket)
    let calls = try Self.calls(history)
    for (id, outcome) in flow.outcomes {
      #expect(calls["box:" + id] == outcome, "\(flow.file): \(id) in \(history)")
    }
    #expect(calls.count == flow.outcomes.count, "\(flow.file): \(history)")
    // The status names the source, connected.
    let status = try await ControlSocketClient.request(#"{"type":"status"}"#, path: setup.socket)
    #expect(status.contains(#""name":"box""#) && status.contains(#""state":"connected""#), "\(status)")

    server.stop()
    try await daemon.stop(keepingDirectory: true)
    await board.stop()
  }

  /// The history's calls by id, with their outcomes.
  static func calls(_ response: String) throws -> [String: String] {
    let object = try JSONParser.parse(response)
    let calls = object["calls"]?.elements ?? []
    var result: [String: String] = [:]
    for call in calls {
      if let id = call["id"]?.string, let outcome = call["outcome"]?.string { result[id] = outcome }
    }
    return result
  }

  @Test func aSourceThatCannotBeReachedIsFailingInStatusWithItsReasonAndNextAttempt() async throws {
    let board = try PseudoTerminalBoard()
    let setup = try Rig.Setup(port: board.slavePath)
    let port = LoopbackPorts.take()  // reserved, so nobody listens there: connecting is refused
    let config = try Self.configure(setup, kind: "fritzbox", port: port)
    let daemon = try await DaemonRig.start(
      options: DaemonOptions(configPath: config, readStandardInput: false), inProcessBoards: false,
      logger: Logger(label: "test"))
    var status = ""
    for _ in 0..<200 {
      status = try await ControlSocketClient.request(#"{"type":"status"}"#, path: setup.socket)
      if status.contains(#""state":"failing""#) { break }
      await Task.yield()
    }
    #expect(status.contains(#""state":"failing""#), "\(status)")
    #expect(status.contains("Connection refused") && status.contains(#""next_attempt_ms":"#), "\(status)")
    #expect(status.contains(#""address":"127.0.0.1:\#(port)""#), "\(status)")
    try await daemon.stop(keepingDirectory: true)
    await board.stop()
  }
}
