import CallAlertEngine
import CallAlertInputs
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// Pushes that name no call id: they ring, their hangups end them, repeats are the same
/// call.
@Suite struct PushWithoutIDTests {
  static let receivedAt = date("2026-11-21T22:00:05Z")

  static func parse(_ json: String, rules: [PushRule] = []) throws(InputError) -> PushNotification {
    try PushPayload.parse(json: Array(json.utf8), rules: rules, receivedAt: receivedAt)
  }

  @Test(arguments: [
    (
      #"{"pushType":1,"caller":"+4930123","callerName":"Alice"}"#,
      PushNotification.callWithoutID(IncomingCall(id: "", callerNumber: "+4930123", callerName: "Alice"))
    ),
    (
      #"{"pushType":1,"aps":{"alert":"Incoming call"}}"#,
      .callWithoutID(IncomingCall(id: "", callerName: "Incoming call"))
    ),
    (#"{"info":{"type":1}}"#, .callWithoutID(IncomingCall(id: ""))),
    (#"{"pushType":2}"#, .hangupWithoutID(callerNumber: nil)),
    (#"{"pushType":2,"caller":"+4930123"}"#, .hangupWithoutID(callerNumber: "+4930123")),
    (#"{"info":{"type":2,"from":"+1415"}}"#, .hangupWithoutID(callerNumber: "+1415")),
    (
      #"{"act":4,"aps":{"alert":{"title":"Door"}}}"#,
      .callWithoutID(
        IncomingCall(id: "", callerName: "Door", level: .timeSensitive, patternHint: "steady_vibration"))
    ),
  ])
  func presetsWithoutAnID(json: String, expected: PushNotification) throws {
    #expect(try Self.parse(json) == expected)
  }

  @Test func rulesWithoutAnIDOrWithoutItsValue() throws {
    let rules = [
      PushRule(match: [.init(path: "event", equals: "ring")], kind: .call, caller: "from"),
      PushRule(match: [.init(path: "event", equals: "end")], kind: .hangup, id: "call.id", caller: "from"),
    ]
    #expect(
      try Self.parse(#"{"event":"ring","from":"+1"}"#, rules: rules)
        == .callWithoutID(IncomingCall(id: "", callerNumber: "+1")))
    #expect(try Self.parse(#"{"event":"end","from":"+1"}"#, rules: rules) == .hangupWithoutID(callerNumber: "+1"))
    #expect(try Self.parse(#"{"event":"end","call":{"id":"k"}}"#, rules: rules) == .hangup(callID: "k"))
  }

  @Test func aRuleMayLeaveOutItsID() throws {
    let config = try parseConfig(
      """
      push_rules:
        - match: {event: ring}
          kind: call
          caller: data.from
      """)
    #expect(
      config.pushRules == [PushRule(match: [.init(path: "event", equals: "ring")], kind: .call, caller: "data.from")])
  }

  /// Ids with control characters, `\u0000` or too many bytes are refused in payloads too.
  @Test(arguments: [#"{"pushType":1,"id":"a\u0000b"}"#, #"{"pushType":2,"callId":"\u001b[2J"}"#])
  func badIDsAreRefused(json: String) {
    #expect(throws: InputError.self) { try Self.parse(json) }
  }

  // MARK: - The tracker

  struct Engine {
    var tracker = AnonymousCallTracker()
    var active: Set<String> = []

    mutating func push(
      _ notification: PushNotification, from source: String = "socket"
    )
      -> AnonymousCallTracker
      .Resolution
    {
      let active = self.active
      let resolution = tracker.resolve(
        notification, source: source, defaultRegion: "DE", now: date("2026-11-21T22:00:00Z"),
        isActive: { active.contains($0) })
      switch resolution {
      case .input(.call(let call)): self.active.insert(call.id)
      case .input(.hangup(let id)): self.active.remove(id)
      default: break
      }
      return resolution
    }
  }

  static func callID(_ resolution: AnonymousCallTracker.Resolution) -> String? {
    if case .input(.call(let call)) = resolution { return call.id }
    return nil
  }

  @Test func anIDLessCallGetsAStableIDAndItsHangupEndsIt() {
    var engine = Engine()
    let first = Self.callID(engine.push(.callWithoutID(IncomingCall(id: "", callerNumber: "+4930123"))))
    #expect(first == "anon-1795298400000-1")
    // The same caller again, written nationally: the same call (the engine then neither restarts nor extends).
    #expect(Self.callID(engine.push(.callWithoutID(IncomingCall(id: "", callerNumber: "030 123")))) == first)
    #expect(engine.push(.hangupWithoutID(callerNumber: nil)) == .input(.hangup(callID: first!)))
    #expect(engine.active.isEmpty)
    // Nothing left to end.
    guard case .ignored(let reason) = engine.push(.hangupWithoutID(callerNumber: nil)) else {
      Issue.record("not ignored")
      return
    }
    #expect(reason.contains("no call without an id rings from socket"))
  }

  @Test func aHangupEndsTheCallerItNamesElseTheNewestFromItsSource() {
    var engine = Engine()
    let alice = Self.callID(engine.push(.callWithoutID(IncomingCall(id: "", callerNumber: "+4930111"))))!
    let bob = Self.callID(engine.push(.callWithoutID(IncomingCall(id: "", callerNumber: "+4930222"))))!
    let stdin = Self.callID(engine.push(.callWithoutID(IncomingCall(id: "")), from: "<stdin>"))!
    #expect(Set([alice, bob, stdin]).count == 3)
    #expect(engine.push(.hangupWithoutID(callerNumber: "+49 30 111")) == .input(.hangup(callID: alice)))
    // No caller named: the newest from that source, not the one from standard input.
    #expect(engine.push(.hangupWithoutID(callerNumber: nil)) == .input(.hangup(callID: bob)))
    #expect(engine.push(.hangupWithoutID(callerNumber: "+1555"), from: "<stdin>") == .input(.hangup(callID: stdin)))
  }

  @Test func aCallThatEndedOtherwiseIsForgotten() {
    var engine = Engine()
    let first = Self.callID(engine.push(.callWithoutID(IncomingCall(id: "", callerNumber: "+4930123"))))!
    engine.active.remove(first)  // its cap, or an acknowledgement
    let second = Self.callID(engine.push(.callWithoutID(IncomingCall(id: "", callerNumber: "+4930123"))))!
    #expect(second != first)
  }

  @Test func callsWithIDsPassThrough() {
    var engine = Engine()
    #expect(engine.push(.call(IncomingCall(id: "k1"))) == .input(.call(IncomingCall(id: "k1"))))
    #expect(engine.push(.hangup(callID: "k1")) == .input(.hangup(callID: "k1")))
    #expect(engine.push(.ignored(reason: "r")) == .ignored(reason: "r"))
  }

  /// An ignored payload's reason quotes its keys safely and briefly.
  @Test func theIgnoredReasonQuotesKeysSafely() throws {
    let longKey = String(repeating: "k", count: 500)
    guard case .ignored(let reason) = try Self.parse("{\"\\u001b[2J\":1,\"\(longKey)\":2}") else {
      Issue.record("not ignored")
      return
    }
    #expect(!reason.contains("\u{1B}") && reason.contains("\\u001B[2J"))
    #expect(reason.utf8.count < 200)
  }
}
