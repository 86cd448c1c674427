import CallAlertTestSupport
import Clocks
import Foundation
import Testing

/// The KDE Connect source against a phone it does not share code with (Fixtures/phone.py, Python's own ssl
/// module, written from the protocol): discovery over UDP on loopback, the TCP connection and TLS with the
/// roles reversed, the identities again inside TLS (protocol 8), pairing accepted with a `pair` request, and
/// the phone's calls ringing a virtual board through the daemon.
@Suite(.enabled(if: ScriptedPhone.isAvailable, "needs python3 and openssl"), .timeLimit(.minutes(2)))
struct KDEConnectEndToEndTests {
  @Test func aPairedPhonesCallRingsTheBoardAndEndsWhenTheRingingStops() async throws {
    let rig = try await KDEConnectDaemonRig.start()
    let phone = try await rig.phone("Test Phone")
    defer { phone.stop() }
    let linked = try #require(await phone.says("linked "))
    #expect(linked.count > "linked ".count)
    #expect(await rig.event(#""kind":"kdeconnect""#, #""name":"Test Phone""#, #""state":"unpaired""#) != nil)

    phone.send("pair")
    #expect(await rig.event(#""name":"Test Phone""#, #""state":"pairing-requested""#) != nil)
    let status = try await rig.request(#"{"type":"status"}"#)
    #expect(status.contains(#""state":"pairing-requested""#))
    #expect(status.contains("callalert kdeconnect pair"))
    // The key the user compares: the phone's, made with OpenSSL from both certificates, is the one status shows.
    let key = try #require(await phone.says("key ")).dropFirst("key ".count)
    #expect(key.count == 8)
    #expect(status.contains("the phone shows the key \(key)"), "\(status)")
    #expect(try await rig.request(#"{"type":"pair","device":"test phone"}"#) == #"{"ok":true}"#)
    #expect(await phone.says("paired") != nil)
    #expect(await rig.event(#""name":"Test Phone""#, #""state":"connected""#) != nil)
    let up = try await rig.metrics().split(separator: "\n").first { line in
      line.hasPrefix("callalert_source_up{") && line.contains(#"kind="kdeconnect""#)
        && line.contains(#"name="Test Phone""#)
    }
    #expect(up?.hasSuffix(" 1.0") == true, "\(up ?? "no callalert_source_up for the phone")")

    // Unanswered: ringing, then the Android app's cancel ("true") and missedCall.
    phone.send("ring +4930123456 Alice")
    let ringing = try #require(await rig.event(#""event":"ringing""#, #""id":"kdeconnect:Test Phone:+4930123456:"#))
    #expect(ringing.contains(#""boards":["desk"]"#))
    #expect(ringing.contains(#""name":"Alice""#))
    phone.send("cancel")
    #expect(await rig.event(#""event":"stopped""#, #""reason":"unanswered""#) != nil)
    phone.send("missed")
    #expect(await rig.event(#""event":"missed""#, "kdeconnect:Test Phone:+4930123456:") != nil)

    // Answered: ringing, talking, then the hang-up.
    phone.send("ring +4930999 Bob")
    #expect(await rig.event(#""event":"ringing""#, "kdeconnect:Test Phone:+4930999:") != nil)
    phone.send("talk")
    #expect(await rig.event(#""event":"stopped""#, #""reason":"answered""#) != nil)
    phone.send("hangup")
    #expect(await phone.says("sent hangup") != nil)

    // Acknowledged on the command line while the phone rings: the phone is asked to mute its ringer.
    phone.send("ring +4930777 Carol")
    #expect(await rig.event(#""event":"ringing""#, "kdeconnect:Test Phone:+4930777:") != nil)
    _ = try await rig.request(#"{"type":"ack"}"#)
    #expect(await phone.says("mute") != nil)

    phone.send("quit")
    #expect(await rig.event(#""name":"Test Phone""#, #""state":"unreachable""#) != nil)
    try await rig.stop()
  }

  @Test func anUnpairedPhonesCallIsRefusedAndAChangedCertificateGetsNoLink() async throws {
    let rig = try await KDEConnectDaemonRig.start()
    let deviceID = "0123456789abcdef0123456789abcdef"
    let phone = try await rig.phone("Paired Phone", id: deviceID)
    defer { phone.stop() }
    #expect(await phone.says("linked ") != nil)
    phone.send("pair")
    #expect(await rig.event(#""name":"Paired Phone""#, #""state":"pairing-requested""#) != nil)
    #expect(try await rig.request(#"{"type":"pair","device":"Paired Phone"}"#) == #"{"ok":true}"#)
    #expect(await phone.says("paired") != nil)

    // A stranger: linked, never paired; its call rings nothing. Its pairing request, sent after the call on the
    // same link, shows the call was handled (and refused) first.
    let stranger = try await rig.phone("Stranger")
    defer { stranger.stop() }
    #expect(await stranger.says("linked ") != nil)
    stranger.send("ring +4930555 Mallory")
    stranger.send("pair")
    #expect(await rig.event(#""name":"Stranger""#, #""state":"pairing-requested""#) != nil)
    #expect(!rig.events.all.contains { $0.contains("kdeconnect:Stranger:") })

    // Someone showing the paired phone's id with another certificate: refused in the TLS handshake.
    phone.send("quit")
    #expect(await rig.event(#""name":"Paired Phone""#, #""state":"unreachable""#) != nil)
    let impostor = try await rig.phone("Paired Phone", folder: "impostor", id: deviceID)
    defer { impostor.stop() }
    #expect(await impostor.says("tls-failed") != nil || impostor.output.all.contains("closed"))
    let refused = try #require(await rig.event(#""name":"Paired Phone""#, #""state":"refused""#))
    #expect(refused.contains("not the one pinned"))
    #expect(!impostor.output.all.contains { $0.hasPrefix("linked") })

    // A pair request for nobody asking says what to do.
    let answer = try await rig.request(#"{"type":"pair","device":"Nobody"}"#)
    #expect(answer.contains(#""ok":false"#))
    #expect(answer.contains("no phone named"))
    try await rig.stop()
  }

  @Test func aProtocol7PhoneThatConnectsToTheDaemonPairsRingsAndResumesAfterLeaving() async throws {
    let phoneUDP = LoopbackPorts.take()
    let rig = try await KDEConnectDaemonRig.start(phoneUDPPort: phoneUDP)
    let deviceID = "fedcba9876543210fedcba9876543210"
    let phone = try await rig.phone("Old Phone", id: deviceID, protocolVersion: 7, listenUDP: phoneUDP)
    defer { phone.stop() }
    #expect(await phone.says("linked ") != nil)
    phone.send("pair")  // protocol 7: no timestamp
    #expect(await rig.event(#""name":"Old Phone""#, #""state":"pairing-requested""#) != nil)
    #expect(try await rig.request(#"{"type":"pair","device":"\#(deviceID)"}"#) == #"{"ok":true}"#)
    #expect(await phone.says("paired") != nil)
    phone.send("ring +4930111 Dora")
    #expect(await rig.event(#""event":"ringing""#, "kdeconnect:Old Phone:+4930111:") != nil)
    phone.send("cancel-bool")
    #expect(await rig.event(#""event":"stopped""#, #""reason":"unanswered""#) != nil)

    // The phone leaves the network, and comes back: the same certificate, linked again, still paired.
    phone.send("quit")
    #expect(await rig.event(#""name":"Old Phone""#, #""state":"unreachable""#) != nil)
    #expect(await phone.says("<exited>") != nil)
    let seen = rig.events.all.count
    let back = try await rig.phone("Old Phone", id: deviceID, protocolVersion: 7, listenUDP: phoneUDP)
    defer { back.stop() }
    #expect(await back.says("linked ") != nil)
    let connected = await rig.events.first(within: 20, from: seen) { line in
      line.contains(#""name":"Old Phone""#) && line.contains(#""state":"connected""#)
    }
    #expect(connected != nil)
    back.send("ring +4930222 Eve")
    #expect(await rig.event(#""event":"ringing""#, "kdeconnect:Old Phone:+4930222:") != nil)
    back.send("quit")
    try await rig.stop()
  }

  @Test func aPairingRequestNobodyAcceptsLapsesAfterThirtySeconds() async throws {
    let clock = TestClock()
    let rig = try await KDEConnectDaemonRig.start(clock: clock)
    let phone = try await rig.phone("Waiting Phone")
    defer { phone.stop() }
    #expect(await phone.says("linked ") != nil)
    phone.send("pair")
    #expect(await rig.event(#""name":"Waiting Phone""#, #""state":"pairing-requested""#) != nil)
    // Virtual time, a second a step, until the daemon has given up on the request: not before 30 s.
    let waited = await advance(clock, by: .seconds(1), within: .seconds(60)) {
      let status = (try? await rig.request(#"{"type":"status"}"#)) ?? ""
      return status.contains(#""name":"Waiting Phone""#) && !status.contains("pairing-requested")
    }
    let elapsed = try #require(waited)
    #expect(elapsed >= .seconds(30) && elapsed <= .seconds(40), "\(elapsed)")
    #expect(await phone.says("unpaired") != nil)
    let answer = try await rig.request(#"{"type":"pair","device":"Waiting Phone"}"#)
    #expect(answer.contains("has not asked to pair"))
    phone.send("quit")
    try await rig.stop()
  }
}
