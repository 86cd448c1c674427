import CallAlertBridges
import CallAlertEngine
import Testing

@testable import CallAlertSIP

/// The SIP call tracker without sockets: what an INVITE, a CANCEL and their copies mean for the engine.
@Suite("SIP call tracker")
struct SIPCallTrackerTests {
  static let account = SIPAccount(name: "ext", registrar: "pbx.local", user: "201")

  static func invite(
    _ callID: String, tag: String = "t1", from: String? = "+4930123", to: String? = "201"
  )
    -> SIPCallEvent
  {
    .invite(
      SIPInvite(callID: callID, fromTag: tag, fromUser: from, fromDisplay: "\"Alice\"", toUser: to, requestUser: "201"))
  }

  @Test func anInviteRingsAndIsAnswered180() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    let decision = tracker.handle(Self.invite("a1"))
    #expect(decision.answer == 180)
    #expect(
      decision.inputs == [.call(IncomingCall(id: "ext:a1", callerNumber: "+4930123", callerName: "Alice"))])
  }

  @Test(arguments: [(200, true), (486, false), (nil, false)] as [(Int?, Bool)])
  func aCancelStopsTheRing(cause: Int?, answeredElsewhere: Bool) {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    _ = tracker.handle(Self.invite("a1"))
    let decision = tracker.handle(.cancel(callID: "a1", reasonCause: cause))
    #expect(decision.inputs == [answeredElsewhere ? .answered(callID: "ext:a1") : .unanswered(callID: "ext:a1")])
    #expect(tracker.calls.isEmpty)
  }

  @Test func forkedCopiesAreOneCall() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    #expect(tracker.handle(Self.invite("a1")).inputs.count == 1)
    let copy = tracker.handle(Self.invite("a1"))
    #expect(copy.answer == 180)
    #expect(copy.inputs.isEmpty)
    #expect(tracker.handle(.cancel(callID: "a1", reasonCause: 200)).inputs == [.answered(callID: "ext:a1")])
    // The second copy's CANCEL changes nothing more.
    #expect(tracker.handle(.cancel(callID: "a1", reasonCause: 200)).inputs.isEmpty)
    #expect(tracker.calls.isEmpty)
  }

  @Test func severalInvitesAreSeveralCalls() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    _ = tracker.handle(Self.invite("a1"))
    _ = tracker.handle(Self.invite("a2", tag: "t2"))
    #expect(tracker.calls.map(\.callID) == ["a1", "a2"])
    #expect(tracker.handle(.cancel(callID: "a2", reasonCause: nil)).inputs == [.unanswered(callID: "ext:a2")])
    #expect(tracker.calls.map(\.callID) == ["a1"])
  }

  @Test func anInviteForAnUnknownUserIsRefused404() {
    var tracker = SIPCallTracker(account: Self.account, region: "DE")
    let decision = tracker.handle(
      .invite(SIPInvite(callID: "x", fromUser: "1", toUser: "999", requestUser: "999")))
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
    let sales = tracker.handle(.invite(SIPInvite(callID: "s", fromUser: "1", toUser: "5551", requestUser: "201")))
    #expect(sales.inputs == [.call(IncomingCall(id: "ext:s", callerNumber: "1", patternHint: "sales"))])
    let ignored = tracker.handle(.invite(SIPInvite(callID: "i", fromUser: "1", toUser: "5552", requestUser: "201")))
    #expect(ignored.answer == 180)
    #expect(ignored.inputs.isEmpty)
    #expect(tracker.handle(.cancel(callID: "i", reasonCause: nil)).inputs.isEmpty)
    let other = tracker.handle(.invite(SIPInvite(callID: "o", fromUser: "1", toUser: "201", requestUser: "201")))
    #expect(other.inputs == [.call(IncomingCall(id: "ext:o", callerNumber: "1", patternHint: "other"))])
  }
}
