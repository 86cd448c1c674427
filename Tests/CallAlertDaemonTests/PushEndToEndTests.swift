import CallAlertControl
import CallAlertDaemon
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertVirtualBoard
import Foundation
import Testing

/// End to end: a push with no call id rings a board over the control socket, and its
/// id-less hangup silences it. On a test clock, as ``DaemonEndToEndTests``.
@Suite("Pushes without an id, end to end", .serialized, .timeLimit(.minutes(1)))
struct PushEndToEndTests {
  typealias Rig = DaemonEndToEndTests

  @Test func anIDLessCallPushRingsAndItsIDLessHangupSilencesTheBoard() async throws {
    let setup = try Rig.Setup()
    let daemon = try await DaemonRig.onATestClock(
      options: DaemonOptions(configPath: setup.config, readStandardInput: false))
    let board = try #require(daemon.board())

    let call = #"{"type":"push","payload":{"pushType":1,"caller":"+14155550101","callerName":"Alice"}}"#
    let rang = try await ControlSocketClient.request(call, path: setup.socket)
    #expect(Answer.outcome(rang)?.callID?.hasPrefix("anon-") == true, "\(rang)")
    #expect(await daemon.waitUntil(board, playing: true))

    // The same caller's call push again: the same call, nothing restarts.
    let again = try await ControlSocketClient.request(call, path: setup.socket)
    #expect(Answer.outcome(again)?.result == .duplicate, "\(again)")

    let hangup = #"{"type":"push","payload":{"pushType":2}}"#
    let ended = try await ControlSocketClient.request(hangup, path: setup.socket)
    #expect(Answer.outcome(ended)?.result == .stopped, "\(ended)")
    #expect(await daemon.waitUntil(board, playing: false))

    // A push about something else is ignored with its reason, and is no error.
    let chat = try await ControlSocketClient.request(
      #"{"type":"push","payload":{"aps":{"content-available":1}}}"#, path: setup.socket)
    #expect(Answer.outcome(chat)?.result == .ignored, "\(chat)")

    let timeline = await board.runner.withBoard { $0.timeline.entries }
    let buzzerOn = timeline.firstIndex { $0.state.buzzerHz > 0 && $0.state.buzzerVolume > 0 }
    #expect(buzzerOn != nil, "the buzzer never sounded: \(timeline.map(\.jsonLine))")
    if let buzzerOn {
      #expect(timeline[buzzerOn...].contains { $0.state.buzzerHz == 0 || $0.state.buzzerVolume == 0 })
    }
    // The ring drives the motor with the buzzer, as a phone does.
    let motorOn = timeline.firstIndex { $0.state.motors.contains { $0 > 0 } }
    #expect(motorOn != nil, "the motor never ran: \(timeline.map(\.jsonLine))")
    if let motorOn, let buzzerOn {
      #expect(timeline[motorOn].ms <= timeline[buzzerOn].ms + 50, "the motor starts with the ring")
    }
    #expect(timeline.last.map { !$0.state.isAlerting } == true, "still alerting: \(timeline.map(\.jsonLine))")

    try await daemon.shutDown()
  }

  /// The engine holds at most 64 active calls, 32 from one source; the
  /// local socket's calls always find room, its own oldest call giving way beyond its share.
  @Test func theSocketsCallsBeyondItsShareDisplaceItsOwnOldest() async throws {
    let setup = try Rig.Setup()
    let daemon = try await DaemonRig.onATestClock(
      options: DaemonOptions(configPath: setup.config, readStandardInput: false))
    for index in 0...64 {
      let answer = try await ControlSocketClient.request(#"{"type":"call","id":"c\#(index)"}"#, path: setup.socket)
      #expect(Answer.of(answer)?.isSuccess == true, "\(answer)")
    }
    // c0 gave way to c32, ... c32 to c64: c0 and c32 have ended, c33 and c64 ring.
    for (id, result) in [("c0", RequestOutcome.Result.ended), ("c32", .ended), ("c33", .stopped), ("c64", .stopped)] {
      let answer = try await ControlSocketClient.request(#"{"type":"hangup","id":"\#(id)"}"#, path: setup.socket)
      #expect(Answer.outcome(answer)?.result == result, "\(id): \(answer)")
    }
    try await daemon.shutDown()
  }
}
