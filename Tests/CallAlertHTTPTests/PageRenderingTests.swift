import CallAlertControl
import CallAlertValues
import Foundation
import Testing

@testable import CallAlertHTTP

/// The page's documents as drawn from a status: what a person sees, and what a screen reader is told.
@Suite("Page rendering")
struct PageRenderingTests {
  static func status(calls: String = "[]", missed: String = "[]", mode: String = "off") throws -> StatusReport {
    let json = """
      {"calls":\(calls),"missed":\(missed),
       "do_not_disturb":{"mode":"\(mode)","active":\(mode == "on"),"silent":false},
       "boards":[{"name":"desk","connected":true,"playing_call":"c1","link":"connected"},
                 {"name":"bed","connected":false,"link":"disconnected","port":"/dev/ttyACM1",
                  "problem":"no such port /dev/ttyACM1"}]}
      """
    return try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
  }

  static let alice = """
    [{"id":"c1","caller":"+14155550101","name":"Alice <b>","level":"active","remaining_ms":27400,
      "boards":["desk"],"playing_on":["desk"],"silent":false,"source":"socket"}]
    """

  @Test func aRingingCallIsALargeAlertAndTheTitleSaysWhoCalls() throws {
    let page = LivePage(status: try Self.status(calls: Self.alice), csrf: "t0k")
    #expect(page.title == "Ringing: Alice <b> (+14155550101) - CallAlert")
    let html = page.document
    #expect(html.contains(#"<div class="banner" role="alert">"#))
    #expect(html.contains("<title>Ringing: Alice &lt;b&gt; (+14155550101) - CallAlert</title>"))
    #expect(!html.contains("Alice <b>"), "a caller's name is text, never markup")
    #expect(html.contains(#"data-remaining-ms="27400">28 s left"#))
    #expect(html.contains(#"action="/page/actions/stop""#) && html.contains(#"name="call" value="c1""#))
    #expect(html.contains(#"id="stop-all""#))
    #expect(html.contains(#"<html lang="en">"#) && html.contains("<main id=\"main\">"))
  }

  /// Each missed call has its own button, named for a screen reader by its caller; the one for all stays.
  @Test func eachMissedCallCanBeAcknowledgedAlone() throws {
    let missed = """
      [{"id":"p1","caller":"+4930123","name":"Bob","level":"active","remaining_ms":0,"boards":[],"playing_on":[],"silent":false},
       {"id":"p2","level":"passive","remaining_ms":0,"boards":[],"playing_on":[],"silent":false}]
      """
    let html = LivePage(status: try Self.status(missed: missed), csrf: "t0k").document
    #expect(html.contains(#"name="call" value="p1""#) && html.contains(#"name="call" value="p2""#))
    #expect(html.contains(#"aria-label="Acknowledge the missed call from Bob (+4930123)""#))
    #expect(html.contains(#"id="acknowledge""#), "the button for all of them")
  }

  @Test func aHistoryRowWaitingForAnAcknowledgementHasItsButton() {
    let at = Date(timeIntervalSince1970: 1_800_000_000)
    let calls = [
      CallRecord(id: "p2", callerName: "Zoë", receivedAt: at, outcome: .missed, missed: true),
      CallRecord(id: "p1", receivedAt: at, outcome: .missed, missed: true, acknowledged: true, acknowledgedAt: at),
      CallRecord(id: "c1", receivedAt: at, outcome: .answered),
    ]
    let utc = TimeZone(identifier: "UTC")!
    let html = HistoryPage(calls: calls, missedOnly: false, problem: nil, csrf: "t0k", timeZone: utc).document
    #expect(html.contains(#"name="call" value="p2""#))
    #expect(!html.contains(#"name="call" value="p1""#) && !html.contains(#"name="call" value="c1""#))
    #expect(html.contains(#"aria-label="Acknowledge the missed call from Zoë at 2027-01-15 08:00:00""#))
  }

  @Test func withNothingRingingThereIsNoAlert() throws {
    let page = LivePage(status: try Self.status(), csrf: "t0k")
    #expect(page.title == "Live - CallAlert")
    #expect(!page.document.contains(#"role="alert""#))
    #expect(page.document.contains("No call is ringing."))
  }

  @Test func eachBoardSaysWhatItDoesAndWhyItIsNotConnected() throws {
    let html = LivePage(status: try Self.status(calls: Self.alice), csrf: "t0k").boards
    #expect(html.contains("<dt>Buzzer</dt><dd>sounding</dd>") && html.contains("<dt>Motor</dt><dd>shaking</dd>"))
    #expect(html.contains("<dt>LED</dt><dd>lit</dd>"))
    #expect(html.contains("disconnected (/dev/ttyACM1): no such port /dev/ttyACM1"))
  }

  @Test func aBedShakerRingsWithItsMotorOnly() throws {
    let html = LivePage(status: try Self.status(calls: Self.alice), csrf: "t", vibrateOnlyBoards: ["desk"]).boards
    #expect(html.contains("<dt>Buzzer</dt><dd>quiet</dd>") && html.contains("<dt>Motor</dt><dd>shaking</dd>"))
  }

  @Test func aLightIsALampWithoutAMotor() throws {
    let html = LivePage(status: try Self.status(calls: Self.alice), csrf: "t", lightBoards: ["desk": "blink1"]).boards
    #expect(html.contains("<dt>Kind</dt><dd>blink1 light</dd>") && html.contains("<dt>Light</dt><dd>lit</dd>"))
    #expect(!html.contains("<dt>Motor</dt><dd>shaking</dd>") && !html.contains("<dt>Ringtone</dt>"))
  }

  @Test func aLightSaysWhichDeviceItIs() throws {
    var status = try Self.status(calls: Self.alice)
    status.boards[0].device = "blink(1) 27b8:01ed at /dev/hidraw3 <serial & co>"
    let html = LivePage(status: status, csrf: "t", lightBoards: ["desk": "blink1"]).boards
    #expect(html.contains("<dt>Device</dt><dd>blink(1) 27b8:01ed at /dev/hidraw3 &lt;serial &amp; co&gt;</dd>"))
    let board = LivePage(status: try Self.status(calls: Self.alice), csrf: "t").boards
    #expect(!board.contains("<dt>Device</dt>"))
  }

  @Test func everyFormCarriesTheSessionsToken() throws {
    let html = LivePage(status: try Self.status(calls: Self.alice, missed: "[]", mode: "on"), csrf: "t0k").document
    let forms = html.components(separatedBy: "<form ").count - 1
    let tokens = html.components(separatedBy: #"<input type="hidden" name="csrf" value="t0k">"#).count - 1
    #expect(forms > 3 && forms == tokens)
  }

  @Test func theSectionsStateLeavesOutTheSecondsThatTickAway() throws {
    let later = Self.alice.replacingOccurrences(of: "27400", with: "12000")
    let first = LivePage(status: try Self.status(calls: Self.alice), csrf: "t").ringing
    let second = LivePage(status: try Self.status(calls: later), csrf: "t").ringing
    let state = { (html: String) in html.components(separatedBy: "data-state=\"")[1].prefix { $0 != "\"" } }
    #expect(state(first) == state(second) && first != second)
  }

  @Test func theQuietSectionOffersEveryOtherMode() throws {
    let html = LivePage(status: try Self.status(mode: "on"), csrf: "t").doNotDisturb
    #expect(html.contains("Do not disturb is <strong>on</strong>"))
    #expect(html.contains(#"name="mode" value="off""#) && html.contains(#"name="mode" value="scheduled""#))
    // On for good is not offered again; on for a while is.
    #expect(!html.contains(#"id="dnd-on""#))
    #expect(html.contains(#"id="dnd-hour""#) && html.contains(#"<label for="dnd-until">On until</label>"#))
  }

  @Test func theSetupPageSaysWhyABoardIsNotConnectedAndThatNoSourceIsConfigured() throws {
    let html = SetupPage(status: try Self.status()).document
    #expect(html.contains("<td>bed</td><td>/dev/ttyACM1</td><td>disconnected</td><td>no such port /dev/ttyACM1</td>"))
    #expect(html.contains("the config names no phone system"))
  }

  @Test func aPhoneAskingToPairHasAButtonThatAcceptsIt() throws {
    var status = try Self.status()
    status.sources = [
      StatusReport.Source(name: "Pixel <7>", kind: "kdeconnect", address: "192.0.2.7", state: "pairing-requested"),
      StatusReport.Source(name: "Old phone", kind: "kdeconnect", address: "192.0.2.8", state: "connected"),
    ]
    let html = SetupPage(status: status, csrf: "t0k").document
    #expect(html.contains(#"action="/page/actions/pair""#))
    #expect(html.contains(#"name="device" value="Pixel &lt;7&gt;""#) && html.contains("Pair with Pixel &lt;7&gt;"))
    #expect(!html.contains(#"value="Old phone""#), "a paired phone has no button")
    #expect(html.contains(#"name="csrf" value="t0k""#))
  }

  @Test func theDoctorsFindingsComeProblemsFirstWithTheirFixes() throws {
    let findings = [
      SetupFinding(check: "config", status: "ok", summary: "loads"),
      SetupFinding(check: "udev", status: "error", summary: "no rule", fix: "sudo make install"),
    ]
    let html = SetupPage(status: try Self.status(), doctorOffered: true, findings: findings, csrf: "t").document
    #expect(html.contains("1 error in 2 checks."))
    let error = try #require(html.range(of: "<td>udev</td>")), fine = try #require(html.range(of: "<td>config</td>"))
    #expect(error.lowerBound < fine.lowerBound, "problems first")
    #expect(html.contains("<code>sudo make install</code>") && html.contains(#"id="run-doctor""#))
  }

  @Test func htmlEscapesEverythingThatCouldEndAnAttributeOrAnElement() {
    #expect(HTML.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
  }
}

/// The page's sessions: a signed cookie, and a form token that only the session's own page knows.
@Suite("Page sessions")
struct PageSessionTests {
  let sessions = PageSessions(key: Array(repeating: 7, count: 32))

  @Test func aCookieReadsBackAsItsSession() throws {
    let session = sessions.newSession(authenticated: false)
    let header = "other=1; \(PageSessions.cookieName)=\(sessions.cookieValue(session))"
    #expect(sessions.session(cookieHeader: header) == session)
    #expect(sessions.setCookie(session).contains("HttpOnly; SameSite=Strict"))
  }

  @Test func aCookieChangedOrSignedUnderAnotherKeyIsNoSession() throws {
    let session = sessions.newSession(authenticated: false)
    let value = sessions.cookieValue(session)
    let promoted = value.replacingOccurrences(of: ".0.", with: ".1.")
    #expect(sessions.session(cookieHeader: "\(PageSessions.cookieName)=\(promoted)") == nil)
    let other = PageSessions(key: Array(repeating: 8, count: 32))
    #expect(other.session(cookieHeader: "\(PageSessions.cookieName)=\(value)") == nil)
    #expect(sessions.session(cookieHeader: "\(PageSessions.cookieName)=x.1.y") == nil)
    #expect(sessions.session(cookieHeader: nil) == nil)
  }

  @Test func aFormTokenBelongsToOneSession() {
    let one = sessions.newSession(authenticated: true)
    let two = sessions.newSession(authenticated: true)
    #expect(one.id != two.id)
    #expect(sessions.isFormToken(sessions.formToken(one), of: one))
    #expect(!sessions.isFormToken(sessions.formToken(two), of: one))
    #expect(!sessions.isFormToken(nil, of: one) && !sessions.isFormToken("", of: one))
  }
}

/// The patterns page: each pattern drawn as a timeline, and a pattern file that does not load shown with the
/// diagnostics `patterns check` gives, at their line and column.
@Suite("Page patterns")
struct PagePatternsTests {
  @Test func aPatternFileIsDrawnAndABrokenOneShowsWhereItIsWrong() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let good = directory.appendingPathComponent("good.yaml").path
    try "version: 1\npatterns:\n  - name: office\n    cadence: UK\n".write(
      toFile: good, atomically: true, encoding: .utf8)
    let drawn = PatternsPage(file: good).document
    #expect(drawn.contains("<figcaption>office, slot 0</figcaption><svg role=\"img\" aria-label=\"Timeline of office"))
    #expect(drawn.contains("<figcaption>US, slot 0</figcaption>"), "the built-in ones follow")

    let broken = directory.appendingPathComponent("broken.yaml").path
    try "version: 1\npatterns:\n  - name: office\n    cadance: UK\n".write(
      toFile: broken, atomically: true, encoding: .utf8)
    let shown = PatternsPage.fromFile(broken)
    #expect(shown.contains("It does not load") && shown.contains("broken.yaml:4:5: error:"), "\(shown)")
  }
}
