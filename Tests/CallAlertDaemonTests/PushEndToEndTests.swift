import CallAlertDaemon
import CallAlertProtocol
import CallAlertVirtualBoard
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// Issue 12's end-to-end case: a push with no call id rings a board over the control socket, and its
/// id-less hangup silences it. Uses the pseudo-terminal rig of ``DaemonEndToEndTests``.
@Suite("Pushes without an id, end to end", .serialized, .timeLimit(.minutes(1)))
struct PushEndToEndTests {
  typealias Rig = DaemonEndToEndTests

  @Test func anIDLessCallPushRingsAndItsIDLessHangupSilencesTheBoard() async throws {
    let board = try Rig.PtyBoard()
    let setup = try Rig.Setup(port: board.slavePath)
    let group = try await Daemon.makeServiceGroup(
      options: DaemonOptions(configPath: setup.config, readStandardInput: false), logger: Logger(label: "test"),
      eventSink: { _ in })
    let running = Task { try await group.run() }

    let call = #"{"type":"push","payload":{"pushType":1,"caller":"+14155550101","callerName":"Alice"}}"#
    let rang = try await ControlSocketClient.request(call, path: setup.socket)
    #expect(rang.contains(#""ok":true"#) && rang.contains(#""id":"anon-"#), "\(rang)")
    #expect(await Rig.waitUntil(playing: true, board.playback))

    // The same caller's call push again: the same call, nothing restarts.
    let again = try await ControlSocketClient.request(call, path: setup.socket)
    #expect(again.contains(#""outcome":"duplicate""#), "\(again)")

    let hangup = #"{"type":"push","payload":{"pushType":2}}"#
    let ended = try await ControlSocketClient.request(hangup, path: setup.socket)
    #expect(ended.contains(#""outcome":"stopped""#), "\(ended)")
    #expect(await Rig.waitUntil(playing: false, board.playback))

    // A push about something else is ignored with its reason, and is no error.
    let chat = try await ControlSocketClient.request(
      #"{"type":"push","payload":{"aps":{"content-available":1}}}"#, path: setup.socket)
    #expect(chat.hasPrefix(#"{"ok":true,"outcome":"ignored""#), "\(chat)")

    let timeline = await board.runner.withBoard { $0.timeline.entries }
    let buzzerOn = timeline.firstIndex { $0.state.buzzerHz > 0 && $0.state.buzzerVolume > 0 }
    #expect(buzzerOn != nil, "the buzzer never sounded: \(timeline.map(\.jsonLine))")
    if let buzzerOn {
      #expect(timeline[buzzerOn...].contains { $0.state.buzzerHz == 0 || $0.state.buzzerVolume == 0 })
    }
    // needs wave2-ring: default ring drives the motor
    // let motorOn = timeline.firstIndex { $0.state.motors.contains { $0 > 0 } }
    // #expect(motorOn != nil, "the motor never ran: \(timeline.map(\.jsonLine))")
    #expect(timeline.last.map { !$0.state.isAlerting } == true, "still alerting: \(timeline.map(\.jsonLine))")

    await group.triggerGracefulShutdown()
    try await running.value
    await board.stop()
  }

  /// Issue 21, item 7: the engine holds at most 64 active calls; the 65th is a control error, not a ring.
  @Test func aCallBeyondTheBoundIsAControlError() async throws {
    let board = try Rig.PtyBoard()
    let setup = try Rig.Setup(port: board.slavePath)
    let group = try await Daemon.makeServiceGroup(
      options: DaemonOptions(configPath: setup.config, readStandardInput: false), logger: Logger(label: "test"),
      eventSink: { _ in })
    let running = Task { try await group.run() }
    for index in 0..<64 {
      let answer = try await ControlSocketClient.request(#"{"type":"call","id":"c\#(index)"}"#, path: setup.socket)
      #expect(answer.hasPrefix(#"{"ok":true"#), "\(answer)")
    }
    let refused = try await ControlSocketClient.request(#"{"type":"call","id":"c64"}"#, path: setup.socket)
    #expect(refused.hasPrefix(#"{"ok":false"#) && refused.contains("64 calls are active already"), "\(refused)")
    await group.triggerGracefulShutdown()
    try await running.value
    await board.stop()
  }
}
