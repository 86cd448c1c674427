import CallAlertEngine
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// The built-in payload shapes.
@Suite struct PushPresetTests {
  static let receivedAt = date("2026-11-21T22:00:05Z")

  static func parse(_ json: String, rules: [PushRule] = []) throws(InputError) -> PushNotification {
    try PushPayload.parse(json: Array(json.utf8), rules: rules, receivedAt: receivedAt)
  }

  @Test(arguments: [
    (
      #"{"pushType":1,"callId":"a1","caller":"+4930123","callerName":"Alice"}"#,
      PushNotification.call(IncomingCall(id: "a1", callerNumber: "+4930123", callerName: "Alice"))
    ),
    (#"{"pushType":"1","call_id":"a2"}"#, .call(IncomingCall(id: "a2"))),
    (#"{"pushType":2,"callId":"a1"}"#, .hangup(callID: "a1")),
    (#"{"pushType":"2","uuid":"a1"}"#, .hangup(callID: "a1")),
    (
      #"{"info":{"type":1,"callId":"b1","caller":"+1415","callerName":"Bob"}}"#,
      .call(IncomingCall(id: "b1", callerNumber: "+1415", callerName: "Bob"))
    ),
    (#"{"info":{"type":2,"id":"b1"}}"#, .hangup(callID: "b1")),
    (
      #"{"info":{"type":"1","from":"+1415"},"aps":{"thread-id":"t-9"}}"#,
      .call(IncomingCall(id: "t-9", callerNumber: "+1415"))
    ),
    (
      #"{"act":4,"id":"v1","number":"+4471"}"#,
      .call(IncomingCall(id: "v1", callerNumber: "+4471", level: .timeSensitive, patternHint: "steady_vibration"))
    ),
    (
      #"{"act":"4","callID":"v2","aps":{"interruption-level":"critical"}}"#,
      .call(IncomingCall(id: "v2", level: .critical, patternHint: "steady_vibration"))
    ),
    (
      #"{"act":4,"callId":"v3","aps":{"interruption-level":"passive"}}"#,
      .call(IncomingCall(id: "v3", level: .timeSensitive, patternHint: "steady_vibration"))
    ),
    (
      #"{"pushType":3,"callId":"m1"}"#,
      .ignored(reason: #"pushType 3 is neither 1 or "call" (incoming call) nor 2 or "hangup" (hangup)"#)
    ),
    (
      #"{"info":{"type":"chat"}}"#,
      .ignored(reason: #"info.type "chat" is neither 1 or "call" (incoming call) nor 2 or "hangup" (hangup)"#)
    ),
    // The words app servers write for the two kinds, in any case.
    (#"{"pushType":"call","callId":"w1"}"#, .call(IncomingCall(id: "w1"))),
    (#"{"pushType":"INCOMING_CALL","callId":"w2"}"#, .call(IncomingCall(id: "w2"))),
    (#"{"info":{"type":"hangup","callId":"w1"}}"#, .hangup(callID: "w1")),
    (#"{"pushType":"Cancel","caller":"+4930123456"}"#, .hangupWithoutID(callerNumber: "+4930123456")),
    (#"{"act":1,"id":"x"}"#, .ignored(reason: "act 1 is not 4 (an alert that needs continuous vibration)")),
    (
      #"{"aps":{"content-available":1},"x":2}"#,
      .ignored(reason: "no push rule and no preset (pushType, info.type, act) matches; top-level keys: aps, x")
    ),
    ("{}", .ignored(reason: "no push rule and no preset (pushType, info.type, act) matches; top-level keys: none")),
  ])
  func presets(json: String, expected: PushNotification) throws {
    #expect(try Self.parse(json) == expected)
  }

  /// The call id comes from the first place that holds one, in the documented order.
  @Test(arguments: [
    (#""callId":"1","call_id":"2","callID":"3","uuid":"4","id":"5""#, "1"),
    (#""call_id":"2","callID":"3","uuid":"4","id":"5""#, "2"),
    (#""callID":"3","uuid":"4","id":"5""#, "3"),
    (#""uuid":"4","id":"5","info":{"callId":"6"}"#, "4"),
    (#""id":"5","info":{"callId":"6"}"#, "5"),
    (#""info":{"callId":"6","id":"7"},"aps":{"thread-id":"8"}"#, "6"),
    (#""info":{"id":"7"},"aps":{"thread-id":"8"}"#, "7"),
    (#""aps":{"thread-id":"8"}"#, "8"),
    (#""callId":"","id":"5""#, "5"),
    (#""callId":null,"id":"5""#, "5"),
    (#""callId":12345"#, "12345"),
  ])
  func callIDPrecedence(members: String, id: String) throws {
    #expect(try Self.parse("{\"pushType\":2,\(members)}") == .hangup(callID: id))
  }

  @Test(arguments: [
    (#""caller":"+1","callerNumber":"+2","from":"+3""#, "+1"), (#""callerNumber":"+2","from":"+3""#, "+2"),
    (#""from":"+3","number":"+4""#, "+3"), (#""number":"+4","info":{"caller":"+5"}"#, "+4"),
    (#""info":{"caller":"+5","from":"+6"}"#, "+5"), (#""info":{"from":"+6"}"#, "+6"), (#""number":4930123"#, "4930123"),
  ])
  func callerPrecedence(members: String, caller: String) throws {
    guard case .call(let call) = try Self.parse("{\"pushType\":1,\"id\":\"c\",\(members)}") else {
      Issue.record("not a call")
      return
    }
    #expect(call.callerNumber == caller)
  }

  @Test(
    arguments: [
      (#""callerName":"A","name":"B","aps":{"alert":{"title":"T"}}"#, "A"),
      (#""name":"B","aps":{"alert":{"title":"T"}}"#, "B"),
      (#""info":{"callerName":"C"},"aps":{"alert":"S"}"#, "C"),
      (#""aps":{"alert":{"title":"T","body":"Incoming call"}}"#, "T"),
      (#""aps":{"alert":"S"}"#, "S"),
      (#""aps":{"alert":{"body":"only a body"}}"#, nil),
      (#""aps":{}"#, nil),
    ] as [(String, String?)])
  func namePrecedence(members: String, name: String?) throws {
    guard case .call(let call) = try Self.parse("{\"pushType\":1,\"id\":\"c\",\(members)}") else {
      Issue.record("not a call")
      return
    }
    #expect(call.callerName == name)
  }

  @Test(
    arguments: [(nil, InterruptionLevel.active)] + InterruptionLevel.allCases.map { ($0.rawValue, $0) }
      as [(String?, InterruptionLevel)])
  func interruptionLevels(text: String?, level: InterruptionLevel) throws {
    let aps = text.map { #","aps":{"interruption-level":"\#($0)"}"# } ?? ""
    #expect(try Self.parse(#"{"pushType":1,"id":"c"\#(aps)}"#) == .call(IncomingCall(id: "c", level: level)))
  }

  @Test(arguments: [
    (#""sentAt":1795298400"#, "2026-11-21T22:00:00Z"),
    (#""sent_at":1795298400250"#, "2026-11-21T22:00:00.250Z"),
    (#""timestamp":"2026-11-21T23:00:01+01:00""#, "2026-11-21T22:00:01Z"),
    (#""info":{"timestamp":"1795298402"}"#, "2026-11-21T22:00:02Z"),
    (#""sentAt":"2026-11-21T22:00:03.5Z","timestamp":1"#, "2026-11-21T22:00:03.500Z"),
    // Later than its arrival: the sender's clock is ahead; lowered to the arrival time.
    (#""sentAt":"2026-11-21T22:10:00Z""#, "2026-11-21T22:00:05Z"),
  ])
  func sentAtTimes(members: String, sentAt: String) throws {
    guard case .call(let call) = try Self.parse("{\"pushType\":1,\"id\":\"c\",\(members)}") else {
      Issue.record("not a call")
      return
    }
    #expect(call.sentAt == date(sentAt))
  }

  /// A hangup is honoured whatever else its payload holds: a broken level must not keep a call ringing.
  @Test func aHangupDoesNotReadTheLevel() throws {
    #expect(
      try Self.parse(#"{"pushType":2,"id":"c","aps":{"interruption-level":"loud"},"sentAt":"never"}"#)
        == .hangup(callID: "c"))
  }

  @Test(arguments: [
    (
      #"{"pushType":1,"id":"c","aps":{"interruption-level":"urgent"}}"#, "push:1:52", "aps.interruption-level",
      "\"urgent\" is not one of passive, active, time-sensitive, critical"
    ),
    (
      #"{"pushType":1,"id":"c","aps":{"interruption-level":"timeSensitive"}}"#, "push:1:52",
      "aps.interruption-level",
      "\"timeSensitive\" is not one of passive, active, time-sensitive, critical; did you mean 'time-sensitive'?"
    ),
    (
      #"{"pushType":1,"id":"c","aps":{"interruption-level":2}}"#, "push:1:52", "aps.interruption-level",
      "2 is not one of passive, active, time-sensitive, critical"
    ),
    (
      #"{"pushType":1,"id":"c","sentAt":"yesterday"}"#, "push:1:33", "sentAt",
      "\"yesterday\" is not a time; expected Unix seconds, Unix milliseconds or ISO 8601 such as 2026-11-21T22:00:00Z"
    ),
    (
      #"{"pushType":1,"id":"c","timestamp":-3}"#, "push:1:36", "timestamp",
      "-3 is not a time; expected Unix seconds, Unix milliseconds or ISO 8601 such as 2026-11-21T22:00:00Z"
    ),
    (#"{"pushType":1,"id":["c"]}"#, "push:1:20", "id", "must be a string or a number, not an array"),
    (
      #"{"pushType":1,"id":"c","caller":true}"#, "push:1:33", "caller", "must be a string or a number, not a boolean"
    ),
    (
      #"{"pushType":1,"id":"c",}"#, "push:1:24", "",
      "JSON syntax error: unexpected '}'; expected a member name in double quotes"
    ),
    (#"[{"pushType":1}]"#, "push:1:1", "", "a push payload must be a JSON object, not an array"),
    ("", "push:1:1", "", "JSON syntax error: unexpected end of input; expected a value"),
  ])
  func errorsNameTheLineColumnAndField(json: String, location: String, field: String, message: String) {
    #expect(throws: InputError(location: location, field: field, message: message)) { try Self.parse(json) }
  }

  @Test func theSourceNamesTheInput() {
    #expect(
      throws: InputError(
        location: "socket:4:12",
        message: "JSON syntax error: unexpected end of input; expected a member name in double quotes")
    ) {
      try PushPayload.parse(
        json: Array("{".utf8), receivedAt: Self.receivedAt, origin: .init(source: "socket", line: 4, column: 11))
    }
  }

  @Test func dataAndBytesReadTheSame() throws {
    let json = #"{"pushType":1,"id":"c","caller":"+1"}"#
    #expect(
      try PushPayload.parse(json: Data(json.utf8), receivedAt: Self.receivedAt)
        == PushPayload.parse(json: Array(json.utf8), receivedAt: Self.receivedAt))
  }
}
