import CallAlertTestSupport
import Foundation
import Testing

/// End to end: the daemon with a `sip:` account (a virtual board, as `run --simulate`) and SIPp as
/// the real peer on loopback, as caller and as registrar. Each test asserts on the board (it sounded and
/// fell silent), on the daemon's events, on the history's outcome, and on SIPp's own verdict (its exit status
/// says the extension answered exactly as the scenario expects: 100/180, never 200, then 200 + 487).
@Suite(
  "SIP ring extension with SIPp, end to end", .serialized, .timeLimit(.minutes(1)),
  .enabled(if: SIPpProcess.isInstalled, "SIPp is not installed (Tools/scripts/install-deps.sh installs it)"))
struct SIPEndToEndTests {
  /// A CANCEL's extra line, the engine's stop reason, the history's outcome.
  struct Cancel: Sendable, CustomTestStringConvertible {
    var header: String
    var stopped: String
    var outcome: String
    var testDescription: String { header }
  }

  static let cancels = [
    Cancel(header: #"Reason: SIP;cause=200;text="Call completed elsewhere""#, stopped: "answered", outcome: "answered"),
    Cancel(header: "X-Test: the caller gave up", stopped: "unanswered", outcome: "missed"),
  ]

  @Test(arguments: cancels)
  func anInviteRingsTheBoardAndItsCancelStopsIt(_ cancel: Cancel) async throws {
    var rig = try await SIPRig()
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "600", "-key", "cancel_header",
        cancel.header, "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let ringing = try #require(await rig.event(#""event":"ringing""#))
    #expect(ringing.contains(#""caller":"+4930123456""#) && ringing.contains(#""name":"Alice Example""#), "\(ringing)")
    let id = try #require(SIPRig.callID(in: ringing))
    #expect(await rig.boardSounds(), "\(rig.log.all.suffix(40)) events: \(rig.lines.suffix(10))")
    #expect(await rig.event(#""event":"stopped""#, #""reason":"\#(cancel.stopped)""#, id) != nil)
    let result = await caller.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    #expect(await rig.boardFallsSilent(), "\(rig.log.all.suffix(40))")
    let spans = await rig.alertSpans()
    #expect(!spans.isEmpty && spans.allSatisfy { $0.end != nil }, "\(spans)")
    #expect(try await rig.history()[id] == cancel.outcome)
    try await rig.stop()
  }

  @Test func anInviteNobodyCancelsRingsUntilTheCapAndThenGetsAFinalAnswer() async throws {
    var rig = try await SIPRig(cap: "1s")
    // The caller never cancels: SIPp fails the scenario unless 100/180 and then 480 come, in that order.
    let caller = try await SIPpProcess(
      scenario: "invite-unanswered.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let ringing = try #require(await rig.event(#""event":"ringing""#))
    let id = try #require(SIPRig.callID(in: ringing))
    #expect(await rig.event(#""event":"missed""#, #""reason":"cap""#, id) != nil)
    #expect(await rig.boardFallsSilent(), "\(rig.log.all.suffix(40))")
    let result = await caller.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    #expect(try await rig.history()[id] == "missed")
    try await rig.stop()
  }

  @Test func twoOverlappingInvitesAreTwoCalls() async throws {
    var rig = try await SIPRig()
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "2", "-l", "2", "-r", "20", "-d", "800",
        "-key", "cancel_header", "X-Test: gave up", "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let first = try await rig.ringingCall()
    let second = try await rig.ringingCall()
    #expect(first != second)
    // Both rang before either stopped: they overlapped.
    #expect(!rig.lines.contains { $0.contains(#""event":"stopped""#) })
    #expect(await rig.event(#""event":"missed""#, first) != nil)
    #expect(await rig.event(#""event":"missed""#, second) != nil)
    let result = await caller.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    let history = try await rig.history()
    #expect(history[first] == "missed" && history[second] == "missed", "\(history)")
    try await rig.stop()
  }

  @Test func aRetransmittedInviteIsOneCall() async throws {
    var rig = try await SIPRig()
    // -nr: SIPp's own retransmissions off, so the scenario's second INVITE is the only repeat.
    let caller = try await SIPpProcess(
      scenario: "invite-retransmitted-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-nr", "-d", "500", "-key",
        "cancel_header", "X-Test: gave up", "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let id = try await rig.ringingCall()
    #expect(await rig.event(#""event":"missed""#, id) != nil)
    let result = await caller.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    #expect(rig.lines.filter { $0.contains(#""event":"ringing""#) }.count == 1, "\(rig.lines)")
    #expect(try await rig.history().count == 1)
    try await rig.stop()
  }

  @Test func aForkedCopyOfAnInviteIsOneCall() async throws {
    var rig = try await SIPRig()
    let caller = try await SIPpProcess(
      scenario: "invite-forked-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-nr", "-d", "500", "-key", "cancel_header",
        #"Reason: SIP;cause=200;text="Call completed elsewhere""#, "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let id = try await rig.ringingCall()
    #expect(await rig.event(#""event":"stopped""#, #""reason":"answered""#, id) != nil)
    let result = await caller.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    #expect(rig.lines.filter { $0.contains(#""event":"ringing""#) }.count == 1, "\(rig.lines)")
    #expect(try await rig.history() == [id: "answered"])
    try await rig.stop()
  }

  @Test func anInviteForAnUnknownUserIsRefusedWith404AndRingsNothing() async throws {
    var rig = try await SIPRig()
    let stranger = try await SIPpProcess(
      scenario: "invite-unknown-user.xml",
      arguments: [
        "-s", "999", "-p", "\(LoopbackPorts.take())", "-m", "1", "-timeout", "20s",
        "127.0.0.1:\(rig.port)",
      ])
    let refused = await stranger.result()
    #expect(refused.status == 0 && !refused.killed, "\(refused.output)")
    #expect(!rig.log.matching("unknown user 999 with 404").isEmpty, "\(rig.log.all)")
    // A call for the extension afterwards is the first and only one to ring.
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "300", "-key", "cancel_header",
        "X-Test: gave up", "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let id = try await rig.ringingCall()
    #expect(await rig.event(#""event":"missed""#, id) != nil)
    #expect(await caller.result().status == 0)
    #expect(try await rig.history().keys.sorted() == [id])
    try await rig.stop()
  }

  @Test func malformedMessagesAreDroppedAndTheNextCallStillRings() async throws {
    var rig = try await SIPRig()
    rig.sendDatagram(Array("this is not SIP\r\n\r\n".utf8))
    rig.sendDatagram([0x00, 0xff, 0x13, 0x37] + Array(repeating: 0x41, count: 2_000))
    // An INVITE with no Call-ID, From or CSeq, and a Content-Length beyond its end.
    rig.sendDatagram(
      Array(
        "INVITE sip:201@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKx\r\nContent-Length: 999\r\n\r\n"
          .utf8))
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "300", "-key", "cancel_header",
        "X-Test: gave up", "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let id = try await rig.ringingCall()
    #expect(await rig.event(#""event":"missed""#, id) != nil)
    let result = await caller.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    #expect(try await rig.history().keys.sorted() == [id])
    try await rig.stop()
  }

  @Test func underDoNotDisturbTheExtensionStillAnswers180AndTheBoardStaysQuiet() async throws {
    var rig = try await SIPRig()
    #expect(try await rig.request(#"{"type":"dnd","mode":"on"}"#).contains(#""ok":true"#))
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "500", "-key", "cancel_header",
        "X-Test: gave up", "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let line = try #require(await rig.event(#""event":"missed""#))
    let id = try #require(SIPRig.callID(in: line))
    // SIPp checks the answers: 100 and 180, then 200 + 487 for its CANCEL.
    let result = await caller.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    #expect(!rig.lines.contains { $0.contains(#""event":"ringing""#) }, "\(rig.lines)")
    #expect(await rig.alertSpans().isEmpty)
    let history = try await rig.history()
    #expect(history[id] == "suppressed", "\(history) \(rig.lines)")
    try await rig.stop()
  }

  @Test func aHundredCallsPlacedAndCancelledBySIPpAreAllRungAndRecorded() async throws {
    var rig = try await SIPRig()
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "100", "-r", "50", "-l", "20", "-d", "200",
        "-key", "cancel_header", "X-Test: gave up", "-timeout", "40s", "127.0.0.1:\(rig.port)",
      ], deadline: .seconds(45))
    var missed: Set<String> = []
    while missed.count < 100, let line = await rig.event(#""event":"missed""#) {
      if let id = SIPRig.callID(in: line) { missed.insert(id) }
    }
    #expect(missed.count == 100)
    #expect(rig.lines.filter { $0.contains(#""event":"ringing""#) }.count == 100)
    let result = await caller.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    let history = try await rig.history()
    #expect(history.count == 100 && history.values.allSatisfy { $0 == "missed" }, "\(history.count)")
    try await rig.stop()
  }
}
