import CallAlertEngine
import CallAlertValues
import Testing

@testable import CallAlertSIP

/// The SIP call tracker without sockets: what an INVITE, a CANCEL and their copies mean for the engine.
@Suite("SIP call tracker")
struct SIPCallTrackerTests {
  static let account = SIPAccount(
    name: "ext", registrar: "pbx.local", user: "201", trusted: [AddressRange(parsing: "192.0.2.0/28")!])
  /// The PBX: inside the account's trusted block.
  static let pbx = "192.0.2.1"

  static func invite(
    _ callID: String, tag: String = "t1", from: String? = "+4930123", to: String? = "201"
  )
    -> SIPCallEvent
  {
    .invite(
      SIPInvite(
        callID: callID, fromTag: tag, fromUser: from, fromDisplay: "\"Alice\"", toUser: to, requestUser: "201",
        source: pbx))
  }

  @Test func anInviteRingsAndIsAnswered180() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    let decision = tracker.handle(Self.invite("a1"), now: 0)
    #expect(decision.answer == 180)
    #expect(
      decision.inputs == [
        .call(IncomingCall(id: "ext:a1", callerNumber: "+4930123", callerName: "Alice", source: .sip("ext")))
      ])
  }

  @Test(arguments: [(200, true), (486, false), (nil, false)] as [(Int?, Bool)])
  func aCancelStopsTheRing(cause: Int?, answeredElsewhere: Bool) {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    _ = tracker.handle(Self.invite("a1"), now: 0)
    let decision = tracker.handle(.cancel(callID: "a1", reasonCause: cause, source: Self.pbx), now: 0)
    #expect(decision.inputs == [answeredElsewhere ? .answered(callID: "ext:a1") : .unanswered(callID: "ext:a1")])
    #expect(tracker.calls.isEmpty)
  }

  @Test func forkedCopiesAreOneCall() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    #expect(tracker.handle(Self.invite("a1"), now: 0).inputs.count == 1)
    let copy = tracker.handle(Self.invite("a1"), now: 0)
    #expect(copy.answer == 180)
    #expect(copy.inputs.isEmpty)
    #expect(
      tracker.handle(.cancel(callID: "a1", reasonCause: 200, source: Self.pbx), now: 0).inputs == [
        .answered(callID: "ext:a1")
      ])
    // The second copy's CANCEL changes nothing more.
    #expect(tracker.handle(.cancel(callID: "a1", reasonCause: 200, source: Self.pbx), now: 0).inputs.isEmpty)
    #expect(tracker.calls.isEmpty)
  }

  @Test func severalInvitesAreSeveralCalls() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    _ = tracker.handle(Self.invite("a1"), now: 0)
    _ = tracker.handle(Self.invite("a2", tag: "t2"), now: 0)
    #expect(tracker.calls.map(\.callID) == ["a1", "a2"])
    #expect(
      tracker.handle(.cancel(callID: "a2", reasonCause: nil, source: Self.pbx), now: 0).inputs == [
        .unanswered(callID: "ext:a2")
      ])
    #expect(tracker.calls.map(\.callID) == ["a1"])
  }

  @Test func anInviteForAnUnknownUserIsRefused404() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    let decision = tracker.handle(
      .invite(SIPInvite(callID: "x", fromUser: "1", toUser: "999", requestUser: "999", source: Self.pbx)), now: 0)
    #expect(decision.answer == 404)
    #expect(decision.inputs.isEmpty)
  }

  @Test func theCallerComesFromAssertedIdentityThenRemotePartyThenFrom() {
    let all = SIPInvite(
      callID: "c", fromUser: "from", fromDisplay: "From", assertedUser: "+4930111", assertedDisplay: "\"Asserted\"",
      remotePartyUser: "+4930222", remotePartyDisplay: "Party")
    #expect(SIPCallTracker.caller(of: all) == ("+4930111", "Asserted"))
    var party = all
    party.assertedUser = nil
    party.assertedDisplay = nil
    #expect(SIPCallTracker.caller(of: party) == ("+4930222", "Party"))
    let anonymous = SIPInvite(callID: "c", fromUser: "anonymous", fromDisplay: "Anonymous")
    #expect(SIPCallTracker.caller(of: anonymous) == (nil, nil))
  }

  @Test func rulesChooseThePatternByTheCalledNumber() {
    var account = Self.account
    account.rules = [
      BridgeFilter(called: ["5551"], pattern: "sales"), BridgeFilter(called: ["5552"], ignore: true),
      BridgeFilter(pattern: "other"),
    ]
    var tracker = SIPCallTracker(account: account, region: "DE")
    let sales = tracker.handle(
      .invite(SIPInvite(callID: "s", fromUser: "1", toUser: "5551", requestUser: "201", source: Self.pbx)), now: 0)
    #expect(
      sales.inputs == [.call(IncomingCall(id: "ext:s", callerNumber: "1", patternHint: "sales", source: .sip("ext")))])
    let ignored = tracker.handle(
      .invite(SIPInvite(callID: "i", fromUser: "1", toUser: "5552", requestUser: "201", source: Self.pbx)), now: 0)
    #expect(ignored.answer == 180)
    #expect(ignored.inputs.isEmpty)
    #expect(tracker.handle(.cancel(callID: "i", reasonCause: nil, source: Self.pbx), now: 0).inputs.isEmpty)
    let other = tracker.handle(
      .invite(SIPInvite(callID: "o", fromUser: "1", toUser: "201", requestUser: "201", source: Self.pbx)), now: 0)
    #expect(
      other.inputs == [.call(IncomingCall(id: "ext:o", callerNumber: "1", patternHint: "other", source: .sip("ext")))])
  }

  // MARK: - Strangers

  @Test func aStrangersInviteIsRefused403AndItsAssertedIdentityRingsNothing() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    // An allowed caller's number in every identity header, from outside the trusted block.
    let forged = SIPInvite(
      callID: "f1", fromTag: "x", fromUser: "+4930123", assertedUser: "+4930123", remotePartyUser: "+4930123",
      toUser: "201", requestUser: "201", source: "192.0.2.200")
    let decision = tracker.handle(.invite(forged), now: 0)
    #expect(decision.answer == 403)
    #expect(decision.inputs.isEmpty)
    #expect(decision.note?.contains("192.0.2.200") == true)
    #expect(tracker.calls.isEmpty)
    var unknown = forged
    unknown.source = nil
    #expect(tracker.handle(.invite(unknown), now: 0).answer == 403)
  }

  @Test func aFloodOfRefusalsIsOneLogLineAMinuteWithItsCount() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    var notes: [String] = []
    for second in 0..<125 {
      let invite = SIPInvite(callID: "s\(second)", toUser: "201", source: "203.0.113.5")
      if let note = tracker.handle(.invite(invite), now: UInt64(second) * 1_000).note { notes.append(note) }
    }
    #expect(notes.count == 3)  // at 0 s, 60 s and 120 s
    #expect(notes[1].hasSuffix("(and 59 more from there in the last minute or more)"))
    // Another source has its own line.
    let other = SIPInvite(callID: "o", toUser: "201", source: "203.0.113.6")
    #expect(tracker.handle(.invite(other), now: 124_500).note?.contains("203.0.113.6") == true)
  }

  @Test func theRegistrarIsTrustedWhereItAnswersFromOrAsWritten() {
    var byName = SIPCallTracker(account: SIPAccount(name: "ext", registrar: "pbx.local", user: "201"), region: "DE")
    let invite = SIPInvite(callID: "r1", fromUser: "1", toUser: "201", source: "198.51.100.7")
    #expect(byName.handle(.invite(invite), now: 0).answer == 403)
    byName.trustRegistrar(at: "198.51.100.7")
    #expect(byName.handle(.invite(invite), now: 0).answer == 180)
    // An IPv4 peer on a dual-stack socket is the same address.
    #expect(byName.isTrusted("::ffff:198.51.100.7"))
    #expect(!byName.isTrusted("198.51.100.8"))
    let literal = SIPCallTracker(
      account: SIPAccount(name: "ext", registrar: "198.51.100.9:5060", user: "201"), region: "DE")
    #expect(literal.isTrusted("198.51.100.9"))
    let direct = SIPCallTracker(
      account: SIPAccount(name: "ext", user: "201", localAddress: "127.0.0.1"), region: "DE")
    // Without a registrar, only 'trusted:' counts: nothing is learned.
    var learning = direct
    learning.trustRegistrar(at: "127.0.0.1")
    #expect(!learning.isTrusted("127.0.0.1"))
  }

  @Test func aStrangersCancelOrByeEndsNothing() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    _ = tracker.handle(Self.invite("a1"), now: 0)
    let cancel = tracker.handle(.cancel(callID: "a1", reasonCause: 200, source: "203.0.113.9"), now: 10)
    #expect(cancel.inputs.isEmpty)
    #expect(cancel.note?.contains("ignored a CANCEL") == true)
    #expect(tracker.calls.map(\.ringing) == [true])
    // A BYE the stack took ends the INVITE there, but the engine rings on to its cap.
    let bye = tracker.handle(.terminated(callID: "a1", status: 200, byeSource: "203.0.113.9"), now: 20)
    #expect(bye.inputs.isEmpty)
    #expect(tracker.calls.isEmpty)
    _ = tracker.handle(Self.invite("a2", tag: "t2"), now: 30)
    let trustedBye = tracker.handle(.terminated(callID: "a2", status: 200, byeSource: Self.pbx), now: 40)
    #expect(trustedBye.inputs == [.unanswered(callID: "ext:a2")])
  }

  // MARK: - Every INVITE ends

  @Test func aCallStillRingingAtTheCapIsAnswered480AndForgotten() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE", ringLimitMs: 30_000)
    _ = tracker.handle(Self.invite("a1"), now: 1_000)
    #expect(tracker.nextDeadline == 31_000)
    #expect(tracker.expire(now: 30_999).finalAnswers.isEmpty)
    let due = tracker.expire(now: 31_000)
    #expect(due.finalAnswers == [SIPFinalAnswer(callID: "a1", status: 480)])
    #expect(due.inputs.isEmpty)  // the engine already stopped it at its cap
    #expect(tracker.expire(now: 31_001).finalAnswers.isEmpty)  // once
    // A copy arriving after the cap gets the final answer straight away.
    #expect(tracker.handle(Self.invite("a1"), now: 32_000).answer == 480)
    // The stack's end of it (both copies) adds nothing for the engine, and the call is gone.
    #expect(tracker.handle(.terminated(callID: "a1", status: 480, byeSource: nil), now: 32_001).inputs.isEmpty)
    #expect(tracker.handle(.terminated(callID: "a1", status: 480, byeSource: nil), now: 32_002).inputs.isEmpty)
    #expect(tracker.calls.isEmpty)
    #expect(tracker.nextDeadline == nil)
    // One whose end never comes back is forgotten 40 s after its answer.
    _ = tracker.handle(Self.invite("a2", tag: "t2"), now: 100_000)
    _ = tracker.expire(now: 130_000)
    #expect(tracker.nextDeadline == 170_000)
    _ = tracker.expire(now: 170_000)
    #expect(tracker.calls.isEmpty)
  }

  @Test func anInviteBeyondThePendingLimitIsAnswered486() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    for index in 0..<SIPCallTracker.maximumCalls {
      #expect(tracker.handle(Self.invite("c\(index)", tag: "t\(index)"), now: 0).answer == 180)
    }
    let busy = tracker.handle(Self.invite("over", tag: "t"), now: 0)
    #expect(busy.answer == 486)
    #expect(busy.inputs.isEmpty)
    #expect(tracker.calls.count == SIPCallTracker.maximumCalls)
    #expect(tracker.calls.first?.callID == "c0")  // nothing ringing was displaced
  }
}
