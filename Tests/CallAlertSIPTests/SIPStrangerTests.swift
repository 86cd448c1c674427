import CallAlertTestSupport
import Foundation
import Testing

/// The SIP extension as a stranger sees it: SIPp on 127.0.0.2 (another loopback address, not trusted) beside
/// the trusted PBX on 127.0.0.1. A stranger's INVITE gets 403 and rings nothing, even with an allowed caller's
/// number in every identity header; a flood of them stays a flood of 403s, logged a line a minute, while the
/// PBX's call still rings.
@Suite(
  "SIP extension against strangers, with SIPp", .serialized, .timeLimit(.minutes(1)),
  .enabled(if: SIPpProcess.isInstalled, "SIPp is not installed (Tools/scripts/install-deps.sh installs it)"))
struct SIPStrangerTests {
  @Test func aStrangersInviteIsRefused403AndRingsNothing() async throws {
    var rig = try await SIPRig(cap: "2s")
    let stranger = try await SIPpProcess(
      scenario: "invite-stranger.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-timeout", "10s", "127.0.0.1:\(rig.port)",
      ],
      localAddress: SIPpProcess.strangerAddress)
    let result = await stranger.result()
    // SIPp's verdict: 403 came (and nothing else but 100), and was acknowledged.
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    #expect(rig.log.matching("refused an INVITE from 127.0.0.2 with 403").count == 1, "\(rig.log.all)")
    // The PBX's call after it rings: the first ringing event is the PBX's, so the stranger's never rang.
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "300", "-key", "cancel_header",
        "X-Test: gave up", "-timeout", "10s", "127.0.0.1:\(rig.port)",
      ])
    let ringing = try #require(await rig.event(#""event":"ringing""#))
    #expect(ringing.contains(#""caller":"+4930123456""#), "\(ringing)")
    #expect(!rig.lines.contains { $0.contains("+49301234567") }, "\(rig.lines)")
    #expect((await caller.result()).status == 0)
    let history = try await rig.history()
    #expect(history.count == 1, "\(history)")
    try await rig.stop()
  }

  @Test func aFloodOfStrangersIsRefusedWhileThePBXsCallRings() async throws {
    var rig = try await SIPRig(cap: "5s")
    // 2 000 INVITEs at 1 000 a second, all open at once if need be: each must get its 403.
    let flood = try await SIPpProcess(
      scenario: "invite-stranger.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "2000", "-r", "1000", "-l", "2000", "-timeout",
        "30s", "127.0.0.1:\(rig.port)",
      ],
      localAddress: SIPpProcess.strangerAddress, deadline: .seconds(40))
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "500", "-key", "cancel_header",
        "X-Test: gave up", "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let id = try await rig.ringingCall()
    #expect(await rig.event(#""event":"missed""#, id) != nil)
    #expect((await caller.result()).status == 0)
    let result = await flood.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    // One line for the flood, not 2 000 (a minute has not passed).
    #expect(rig.log.matching("refused an INVITE from 127.0.0.2").count == 1, "\(rig.log.matching("refused"))")
    #expect(try await rig.history().keys.sorted() == [id])
    try await rig.stop()
  }
}
