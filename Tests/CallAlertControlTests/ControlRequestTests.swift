import CallAlertControl
import CallAlertEngine
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// Control lines: every request type, and errors at the column of the offending value.
@Suite struct ControlRequestTests {
  static func parse(_ line: String, lineNumber: Int = 1) throws(InputError) -> ControlRequest {
    try ControlRequest.parse(line: line, source: "<stdin>", lineNumber: lineNumber)
  }

  @Test(arguments: [
    (
      #"{"type":"call","id":"c1","caller":"+4930123","name":"Alice","sent_at":"2026-11-21T22:00:00Z","#
        + #""level":"time-sensitive","pattern":"office"}"#,
      ControlRequest.input(
        .call(
          IncomingCall(
            id: "c1", callerNumber: "+4930123", callerName: "Alice", sentAt: date("2026-11-21T22:00:00Z"),
            level: .timeSensitive,
            patternHint: "office")))
    ),
    (#"{"type":"call","id":"c2"}"#, .input(.call(IncomingCall(id: "c2")))),
    (#"{"id":"c2","type":"call"}"#, .input(.call(IncomingCall(id: "c2")))),
    (
      #"{"type":"call","id":42,"sent_at":1795298400}"#,
      .input(.call(IncomingCall(id: "42", sentAt: date("2026-11-21T22:00:00Z"))))
    ),
    (
      #"{"type":"call","id":"c3","sent_at":1795298400500}"#,
      .input(.call(IncomingCall(id: "c3", sentAt: date("2026-11-21T22:00:00.500Z"))))
    ),
    (
      #"{"type":"call","id":"c4","sent_at":"1795298400"}"#,
      .input(.call(IncomingCall(id: "c4", sentAt: date("2026-11-21T22:00:00Z"))))
    ),
    (
      #"{"type":"call","id":"c5","caller":null,"name":"","level":null,"pattern":null,"sent_at":null}"#,
      .input(.call(IncomingCall(id: "c5")))
    ),
    (#"{"type":"call","id":"c6","level":"passive"}"#, .input(.call(IncomingCall(id: "c6", level: .passive)))),
    (#"{"type":"call","id":"c7","level":"critical"}"#, .input(.call(IncomingCall(id: "c7", level: .critical)))),
    (
      #"{"type":"call","id":"é📞","name":"Zoë \"Z\""}"#,
      .input(.call(IncomingCall(id: "é📞", callerName: "Zoë \"Z\"")))
    ),
    (#"{"type":"hangup","id":"c1"}"#, .input(.hangup(callID: "c1"))),
    (#"{"type":"answered"}"#, .input(.answered(callID: nil))),
    (#"{"type":"answered","id":null}"#, .input(.answered(callID: nil))),
    (#"{"type":"answered","id":"c1"}"#, .input(.answered(callID: "c1"))),
    (#"{"type":"ack"}"#, .input(.acknowledge(board: nil))),
    (#"{"type":"ack","board":"bed"}"#, .input(.acknowledge(board: "bed"))),
    (#"{"type":"ack","id":"p1"}"#, .input(.acknowledgeMissed(callID: "p1"))),
    (#"{"type":"ack","id":"p1","board":""}"#, .input(.acknowledgeMissed(callID: "p1"))),
    (#"{"type":"dnd","mode":"on"}"#, .input(.setDoNotDisturb(.on))),
    (#"{"type":"dnd","mode":"off"}"#, .input(.setDoNotDisturb(.off))),
    (#"{"type":"dnd","mode":"scheduled"}"#, .input(.setDoNotDisturb(.scheduled))),
    (
      #"{"type":"dnd","mode":"on","until":"2026-11-28T07:00:00+01:00"}"#,
      .input(.setDoNotDisturb(.on, until: Date(timeIntervalSince1970: 1_795_845_600)))
    ),
    (
      #"{"type":"dnd","mode":"off","until":1795845600}"#,
      .input(.setDoNotDisturb(.off, until: Date(timeIntervalSince1970: 1_795_845_600)))
    ),
    (#"{"type":"dnd","mode":"on","until":null}"#, .input(.setDoNotDisturb(.on))),
    (#"{"type":"silent","on":true}"#, .input(.setSilent(true))),
    (#"{"type":"silent","on":false}"#, .input(.setSilent(false))),
    (#"{"type":"status"}"#, .status),
    (#"{"type":"history"}"#, .history(missedOnly: false, limit: 20)),
    (#"{"type":"history","missed":true,"limit":5}"#, .history(missedOnly: true, limit: 5)),
    (#"{"type":"history","limit":1000,"missed":false}"#, .history(missedOnly: false, limit: 1_000)),
    (#"{"type":"reload"}"#, .reload),
    ("  \t{ \"type\" : \"reload\" }  \r", .reload),
  ])
  func validLines(line: String, request: ControlRequest) throws {
    #expect(try Self.parse(line) == request)
  }

  /// A push request carries the payload parsed once, with its own bytes and place, which the push reader
  /// then reads with the rules without parsing again.
  @Test func aPushPayloadIsPassedOnAsWritten() throws {
    let line = #"{"type":"push","payload":{"info":{"type":2,"id":"x9"}}}"#
    guard case .push(let document) = try Self.parse(line) else {
      Issue.record("not a push")
      return
    }
    #expect(document.payload == Array(#"{"info":{"type":2,"id":"x9"}}"#.utf8))
    #expect(document.origin == PushPayload.Origin(source: "<stdin>", line: 1, column: 26))
    #expect(document.form == .object)
    #expect(try PushPayload.read(document, receivedAt: Date()) == .hangup(callID: "x9"))
  }

  @Test(arguments: [
    ("", "1", "", "empty line; send one JSON object per line, e.g. {\"type\":\"status\"}"),
    (
      #"{"type":"dnd","mode":"on","until":"tomorrow"}"#, "35", "until",
      "\"tomorrow\" is not a time; expected Unix seconds, Unix milliseconds or ISO 8601 such as 2026-11-21T22:00:00Z"
    ),
    (
      #"{"type":"call","id":"c1","level":"urgent"}"#, "34", "level",
      "\"urgent\" is not one of passive, active, time-sensitive, critical"
    ),
    (
      #"{"type":"call","id":"c1","level":"Critical"}"#, "34", "level",
      "\"Critical\" is not one of passive, active, time-sensitive, critical; did you mean 'critical'?"
    ),
    (
      #"{"type":"call","id":"c1","level":3}"#, "34", "level",
      "3 is not one of passive, active, time-sensitive, critical"
    ),
    (
      #"{"type":"call","id":"c1","levle":"critical"}"#, "26", "levle",
      "unknown field; did you mean 'level'?; call takes id, caller, name, sent_at, level, pattern"
    ),
    (
      #"{"type":"call","id":"c1","colour":"red"}"#, "26", "colour",
      "unknown field; call takes id, caller, name, sent_at, level, pattern"
    ),
    (#"{"type":"status","verbose":true}"#, "18", "verbose", "unknown field; status takes no other fields"),
    (#"{"type":"call","caller":"+1"}"#, "1", "id", "missing; call needs \"id\""),
    (#"{"type":"hangup"}"#, "1", "id", "missing; hangup needs \"id\""),
    (#"{"type":"hangup","id":""}"#, "23", "id", "\"\" is not a call id; use a non-empty string such as \"c1\""),
    (#"{"type":"hangup","id":null}"#, "23", "id", "null is not a call id; use a non-empty string such as \"c1\""),
    (#"{"type":"hangup","id":1.5}"#, "23", "id", "1.5 is not a call id; use a non-empty string such as \"c1\""),
    (#"{"type":"call","id":"c1","id":"c2"}"#, "26", "id", "appears twice; give each field once"),
    (#"{"type":"call","id":"c1","caller":4930123}"#, "35", "caller", "must be a string, not a number (4930123)"),
    (
      #"{"type":"call","id":"c1","sent_at":"yesterday"}"#, "36", "sent_at",
      "\"yesterday\" is not a time; expected Unix seconds, Unix milliseconds or ISO 8601 such as 2026-11-21T22:00:00Z"
    ),
    (
      #"{"type":"call","id":"c1","sent_at":true}"#, "36", "sent_at",
      "true is not a time; expected Unix seconds, Unix milliseconds or ISO 8601 such as 2026-11-21T22:00:00Z"
    ),
    (
      #"{"id":"c1"}"#, "1", "type",
      "missing; say what the line is with \"type\": one of call, hangup, answered, ack, dnd, silent, push, status, "
        + "history, reload, pair"
    ),
    (
      #"{"type":"ring"}"#, "9", "type",
      "\"ring\" is not one of call, hangup, answered, ack, dnd, silent, push, status, history, reload, pair"
    ),
    (
      #"{"type":"hangpu","id":"c1"}"#, "9", "type",
      "\"hangpu\" is not one of call, hangup, answered, ack, dnd, silent, push, status, history, reload, pair; "
        + "did you mean 'hangup'?"
    ),
    (
      #"{"type":7}"#, "9", "type",
      "7 is not one of call, hangup, answered, ack, dnd, silent, push, status, history, reload, pair"
    ),
    (#"{"type":"dnd","mode":"quiet"}"#, "22", "mode", "\"quiet\" is not one of on, off, scheduled"),
    (#"{"type":"dnd"}"#, "1", "mode", "missing; dnd needs \"mode\""),
    (#"{"type":"silent","on":"yes"}"#, "23", "on", "\"yes\" is not true or false"),
    (#"{"type":"silent","on":1}"#, "23", "on", "1 is not true or false"),
    (#"{"type":"history","limit":0}"#, "27", "limit", "0 is not a whole number from 1 to 1000"),
    (#"{"type":"history","limit":5000}"#, "27", "limit", "5000 is not a whole number from 1 to 1000"),
    (#"{"type":"history","limit":2.5}"#, "27", "limit", "2.5 is not a whole number from 1 to 1000"),
    (#"{"type":"history","missed":"yes"}"#, "28", "missed", "\"yes\" is not true or false"),
    (
      #"{"type":"push","payload":[1]}"#, "26", "payload",
      "must be the push payload as a JSON object, or its text as a string, not an array"
    ),
    (#"{"type":"push"}"#, "1", "payload", "missing; push needs \"payload\""),
    (#"{"type":"ack","board":"bed","id":"p1"}"#, "34", "id", "give \"id\" (one missed call) or \"board\", not both"),
    (#"{"type":"ack","id":""}"#, "20", "id", "\"\" is not a call id; use a non-empty string such as \"c1\""),
    (#"{"type":"ack",}"#, "15", "", "JSON syntax error: unexpected '}'; expected a member name in double quotes"),
    (
      #"{"type":"ack"} x"#, "16", "",
      "JSON syntax error: unexpected 'x' after the JSON value; send one value per message"
    ),
    (#"["status"]"#, "1", "", "a request must be a JSON object such as {\"type\":\"status\"}, not an array"),
    ("type=status", "1", "", "JSON syntax error: unexpected 't'; expected a value"),
    // Columns count characters, not bytes.
    (
      #"{"type":"call","name":"Zoë 📞","id":"c","level":"x"}"#, "48", "level",
      "\"x\" is not one of passive, active, time-sensitive, critical"
    ),
  ])
  func invalidLines(line: String, column: String, field: String, message: String) {
    #expect(throws: InputError(location: "<stdin>:7:\(column)", field: field, message: message)) {
      try Self.parse(line, lineNumber: 7)
    }
  }

  @Test func errorsNameTheSourceAndLine() {
    #expect(throws: InputError(location: "socket:12:1", field: "id", message: "missing; hangup needs \"id\"")) {
      try ControlRequest.parse(line: #"{"type":"hangup"}"#, source: "socket", lineNumber: 12)
    }
  }
}
