import CallAlertControl
import CallAlertEngine
import CallAlertProtocol
import CallAlertTestSupport
import CallAlertText
import Foundation
import Testing

@Suite struct EventLineTests {
  static let at = date("2026-11-21T22:00:01Z")
  static let utc = TimeZone(identifier: "UTC")!
  static let alice = IncomingCall(id: "c1", callerNumber: "+4930123", callerName: "Alice")

  @Test(arguments: [
    (
      EngineEvent.ringing(alice, boards: ["desk", "bed"], pattern: .named("office"), capMs: 30_000, silent: false),
      #"{"event":"ringing","at":"2026-11-21T22:00:01.000Z","#
        + #""call":{"id":"c1","caller":"+4930123","name":"Alice","level":"active","sent_at":null},"#
        + #""boards":["desk","bed"],"pattern":"office","cap_ms":30000,"silent":false}"#,
      "22:00:01 ringing c1 Alice (+4930123) on desk, bed: pattern office, 30 s"
    ),
    (
      .ringing(
        IncomingCall(id: "c2", sentAt: date("2026-11-21T22:00:00.5Z"), level: .critical), boards: ["bed"],
        pattern: .slot(3),
        capMs: 29_500, silent: true),
      #"{"event":"ringing","at":"2026-11-21T22:00:01.000Z","#
        + #""call":{"id":"c2","caller":null,"name":null,"level":"critical","sent_at":"2026-11-21T22:00:00.500Z"},"#
        + #""boards":["bed"],"pattern":3,"cap_ms":29500,"silent":true}"#,
      "22:00:01 ringing c2 withheld on bed: pattern slot 3, 29.5 s, critical, silent (motor only)"
    ),
    (
      .ringing(
        IncomingCall(id: "c3", callerNumber: "+1"), boards: [],
        pattern: .inline(Pattern(steps: [PatternStep(durationMs: 100)])),
        capMs: 250, silent: false),
      #"{"event":"ringing","at":"2026-11-21T22:00:01.000Z","#
        + #""call":{"id":"c3","caller":"+1","name":null,"level":"active","sent_at":null},"#
        + #""boards":[],"pattern":"inline","cap_ms":250,"silent":false}"#,
      "22:00:01 ringing c3 +1 (waiting for a board): inline pattern, 0.25 s"
    ),
    (
      .patternFallback(
        callID: "c6", board: "desk", requested: .named("office"), played: "UK",
        reason: "no pattern named 'office' on the board or among the built-ins"),
      #"{"event":"pattern_fallback","at":"2026-11-21T22:00:01.000Z","call":{"id":"c6"},"board":"desk","#
        + #""pattern":"office","played":"UK","reason":"no pattern named 'office' on the board or among the built-ins"}"#,
      "22:00:01 fallback c6 on desk: plays UK instead of pattern office: no pattern named 'office' on the board or "
        + "among the built-ins"
    ),
    (
      .callsRefused(
        source: .sip("pbx"), count: 1, first: IncomingCall(id: "pbx:a@b", callerName: "Bob"),
        since: date("2026-11-21T22:00:00Z")),
      #"{"event":"calls_refused","at":"2026-11-21T22:00:01.000Z","#
        + #""call":{"id":"pbx:a@b","caller":null,"name":"Bob","level":"active","sent_at":null},"#
        + #""source":"sip:pbx","count":1,"since":"2026-11-21T22:00:00.000Z","reason":"too-many-calls"}"#,
      "22:00:01 refused 1 call from sip:pbx since 22:00:00, the first pbx:a@b Bob: too-many-calls"
    ),
    (
      .doNotDisturbEnded(mode: .on, until: date("2026-11-21T22:00:00Z")),
      #"{"event":"dnd_ended","at":"2026-11-21T22:00:01.000Z","mode":"on","until":"2026-11-21T22:00:00.000Z"}"#,
      "22:00:01 do-not-disturb on ended: as configured again"
    ),
    (
      .suppressed(IncomingCall(id: "c4", callerName: "Bob"), reason: .doNotDisturb),
      #"{"event":"suppressed","at":"2026-11-21T22:00:01.000Z","#
        + #""call":{"id":"c4","caller":null,"name":"Bob","level":"active","sent_at":null},"#
        + #""reason":"do-not-disturb"}"#,
      "22:00:01 suppressed c4 Bob: do-not-disturb"
    ),
    (
      .suppressed(IncomingCall(id: "c5", level: .passive), reason: .passive),
      #"{"event":"suppressed","at":"2026-11-21T22:00:01.000Z","#
        + #""call":{"id":"c5","caller":null,"name":null,"level":"passive","sent_at":null},"#
        + #""reason":"passive"}"#,
      "22:00:01 suppressed c5 withheld: passive"
    ),
    (
      .stopped(callID: "c1", reason: .hangup),
      #"{"event":"stopped","at":"2026-11-21T22:00:01.000Z","call":{"id":"c1"},"reason":"hangup"}"#,
      "22:00:01 stopped c1: hangup"
    ),
    (
      .stopped(callID: "c1", reason: .boardLost),
      #"{"event":"stopped","at":"2026-11-21T22:00:01.000Z","call":{"id":"c1"},"reason":"board-lost"}"#,
      "22:00:01 stopped c1: board-lost"
    ),
    (
      .missed(alice, reason: .tooLate),
      #"{"event":"missed","at":"2026-11-21T22:00:01.000Z","#
        + #""call":{"id":"c1","caller":"+4930123","name":"Alice","level":"active","sent_at":null},"#
        + #""reason":"too-late"}"#,
      "22:00:01 missed c1 Alice (+4930123): too-late"
    ),
    (
      .missedAcknowledged(count: 2),
      #"{"event":"missed_acknowledged","at":"2026-11-21T22:00:01.000Z","count":2}"#,
      "22:00:01 missed calls acknowledged: 2"
    ),
    (
      .missedCallAcknowledged(callID: "p1"),
      #"{"event":"missed_call_acknowledged","at":"2026-11-21T22:00:01.000Z","call":{"id":"p1"}}"#,
      "22:00:01 missed call acknowledged: p1"
    ),
    (
      .ignored(callID: "c\"1", reason: .duplicateCall),
      #"{"event":"ignored","at":"2026-11-21T22:00:01.000Z","call":{"id":"c\"1"},"reason":"duplicate-call"}"#,
      "22:00:01 ignored c\"1: duplicate-call"
    ),
  ])
  func eventLines(event: EngineEvent, json: String, text: String) throws {
    #expect(EventLine.json(event, at: Self.at) == json)
    #expect(EventLine.text(event, at: Self.at, timeZone: Self.utc) == text)
    // Every JSON line is valid JSON with the event's name.
    let object = try JSONParser.parse(json)
    #expect(object["event"]?.string == EventLine.name(of: event))
  }

  @Test func textLinesUseTheGivenTimeZone() throws {
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    #expect(
      EventLine.text(.stopped(callID: "c", reason: .cap), at: Self.at, timeZone: berlin) == "23:00:01 stopped c: cap")
  }
}
