import CallAlertEngine
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// Rules from the config map other payload shapes, before the presets.
@Suite struct PushRuleTests {
  static let receivedAt = date("2026-11-21T22:00:05Z")

  static let ring = PushRule(
    match: [PushRule.Match(path: "event", equals: "ring")], kind: .call, id: "data.call.id", caller: "data.call.from",
    name: "data.call.name", sentAt: "data.sent", level: "data.urgency", pattern: "data.tone")
  static let cancel = PushRule(
    match: [PushRule.Match(path: "event", equals: "cancel")], kind: .hangup, id: "data.call.id")

  static func parse(_ json: String, rules: [PushRule] = [ring, cancel]) throws(InputError) -> PushNotification {
    try PushPayload.parse(json: Array(json.utf8), rules: rules, receivedAt: receivedAt)
  }

  @Test func aRuleReadsEveryField() throws {
    let json = #"""
      {"event":"ring","data":{"call":{"id":"r1","from":"+4930","name":"Desk"},"sent":1795298400,
       "urgency":"critical","tone":"office"}}
      """#
    #expect(
      try Self.parse(json)
        == .call(
          IncomingCall(
            id: "r1", callerNumber: "+4930", callerName: "Desk", sentAt: date("2026-11-21T22:00:00Z"), level: .critical,
            patternHint: "office")))
  }

  @Test func aRuleWithOnlyAnIDGivesAnActiveCall() throws {
    let rule = PushRule(match: [PushRule.Match(path: "t", equals: "x")], kind: .call, id: "items[0].id")
    #expect(try Self.parse(#"{"t":"x","items":[{"id":7}]}"#, rules: [rule]) == .call(IncomingCall(id: "7")))
  }

  @Test func aHangupRule() throws {
    #expect(try Self.parse(#"{"event":"cancel","data":{"call":{"id":"r1"}}}"#) == .hangup(callID: "r1"))
  }

  @Test func rulesComeBeforePresets() throws {
    // pushType 1 would make this a call; the rule says hangup.
    #expect(
      try Self.parse(#"{"event":"cancel","pushType":1,"id":"p","data":{"call":{"id":"r1"}}}"#) == .hangup(callID: "r1"))
  }

  @Test func aPayloadNoRuleMatchesFallsToThePresets() throws {
    #expect(try Self.parse(#"{"event":"other","pushType":2,"id":"p"}"#) == .hangup(callID: "p"))
  }

  @Test func theFirstMatchingRuleWins() throws {
    let first = PushRule(match: [PushRule.Match(path: "k", equals: "1")], kind: .hangup, id: "a")
    let second = PushRule(match: [PushRule.Match(path: "k", equals: "1")], kind: .hangup, id: "b")
    #expect(try Self.parse(#"{"k":1,"a":"A","b":"B"}"#, rules: [first, second]) == .hangup(callID: "A"))
    #expect(try Self.parse(#"{"k":1,"a":"A","b":"B"}"#, rules: [second, first]) == .hangup(callID: "B"))
  }

  /// Conditions compare as text: numbers by value, booleans by name, and every condition must hold.
  @Test(
    arguments: [
      ("3", "3", true), (#""3""#, "3", true), ("3.0", "3", true), ("30", "3", false), ("true", "true", true),
      ("false", "true", false), (#""true""#, "true", true), ("null", "null", true), (#""Ring""#, "ring", false),
      ("[3]", "3", false), (nil, "3", false),
    ] as [(String?, String, Bool)])
  func conditionsCompareAsText(value: String?, equals: String, matches: Bool) throws {
    let rule = PushRule(match: [PushRule.Match(path: "k", equals: equals)], kind: .hangup, id: "id")
    let json = value.map { #"{"k":\#($0),"id":"i"}"# } ?? #"{"id":"i"}"#
    let result = try PushPayload.parse(json: Array(json.utf8), rules: [rule], receivedAt: Self.receivedAt)
    #expect((result == .hangup(callID: "i")) == matches, "\(json)")
  }

  @Test func everyConditionMustHold() throws {
    let rule = PushRule(
      match: [PushRule.Match(path: "a", equals: "1"), PushRule.Match(path: "b.c", equals: "x")], kind: .hangup, id: "id"
    )
    #expect(try Self.parse(#"{"a":1,"b":{"c":"x"},"id":"i"}"#, rules: [rule]) == .hangup(callID: "i"))
    #expect(try Self.parse(#"{"a":1,"b":{"c":"y"},"id":"i"}"#, rules: [rule]) != .hangup(callID: "i"))
  }

  @Test(arguments: [
    (
      #"{"event":"ring","data":{"call":{"id":"r"},"urgency":"high"}}"#, "push:1:53", "data.urgency",
      "\"high\" is not one of passive, active, time-sensitive, critical"
    ),
    (
      #"{"event":"ring","data":{"call":{"id":"r"},"sent":"soon"}}"#, "push:1:50", "data.sent",
      "\"soon\" is not a time; expected Unix seconds, Unix milliseconds or ISO 8601 such as 2026-11-21T22:00:00Z"
    ),
    (
      #"{"event":"ring","data":{"call":{"id":{"n":1}}}}"#, "push:1:38", "data.call.id",
      "must be a string or a number, not an object"
    ),
  ])
  func ruleErrors(json: String, location: String, field: String, message: String) {
    #expect(throws: InputError(location: location, field: field, message: message)) { try Self.parse(json) }
  }

  /// A rule written in the config file reads a payload the same as one built in code.
  @Test func rulesFromTheConfigFile() throws {
    let config = try parseConfig(
      """
      push_rules:
        - match: {"items[0].kind": incoming, "meta[\\"x.y\\"]": 1}
          kind: call
          id: items[0].id
          caller: items[0].number
      """)
    #expect(
      config.pushRules == [
        PushRule(
          match: [
            PushRule.Match(path: "items[0].kind", equals: "incoming"),
            PushRule.Match(path: #"meta["x.y"]"#, equals: "1"),
          ],
          kind: .call, id: "items[0].id", caller: "items[0].number")
      ])
    let json = #"{"items":[{"kind":"incoming","id":4711,"number":"+4930999"}],"meta":{"x.y":1}}"#
    #expect(try Self.parse(json, rules: config.pushRules) == .call(IncomingCall(id: "4711", callerNumber: "+4930999")))
  }
}
