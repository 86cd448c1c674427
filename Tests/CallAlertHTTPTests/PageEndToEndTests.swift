import Foundation
import NIOHTTP1
import Testing

/// The page over real HTTP, in the daemon with a virtual board, as a browser without scripts uses it: the
/// documents, the buttons (plain forms, 303 back), and what protects them (the session's form token, the
/// origin, the token's login).
@Suite("Page end to end", .serialized, .timeLimit(.minutes(1)))
struct PageEndToEndTests {
  @Test func theLivePageShowsARingingCallAndItsStopButtonSilencesIt() async throws {
    let rig = try await HTTPDaemonRig.start()
    let browser = PageBrowser(port: rig.port)
    let root = try await browser.send(.GET, "/")
    #expect(root.status == 303 && root.location == "/page")
    let call = try await rig.send(.POST, "/v1/calls", body: #"{"id":"c1","caller":"+4930123","name":"Alice"}"#)
    #expect(call.status == 200)
    #expect(await rig.boardPlays(true))
    let page = try await browser.send(.GET, "/page")
    #expect(page.status == 200 && page.headers.first(name: "content-type") == "text/html; charset=utf-8")
    #expect(page.body.contains(#"role="alert""#) && page.body.contains("<title>Ringing: Alice (+4930123)"))
    #expect(page.headers.first(name: "content-security-policy")?.contains("script-src 'self'") == true)
    #expect(browser.cookie?.hasPrefix("callalert_session=") == true)
    let token = try #require(page.formToken)

    let stop = try await browser.press("/page/actions/stop", [("call", "c1"), ("back", "/page")], token: token)
    #expect(stop.status == 303 && stop.location == "/page", "\(stop.body)")
    #expect(await rig.boardPlays(false))
    let after = try await browser.send(.GET, "/page/live.part")
    #expect(after.body.contains("No call is ringing.") && !after.body.contains(#"role="alert""#))
    try await browser.shutdown()
    try await rig.stop()
  }

  @Test func aFormWithoutThisSessionsTokenOrFromAnotherSiteChangesNothing() async throws {
    let rig = try await HTTPDaemonRig.start()
    let browser = PageBrowser(port: rig.port)
    let token = try #require(try await browser.send(.GET, "/page").formToken)
    _ = try await rig.send(.POST, "/v1/calls", body: #"{"id":"c2"}"#)
    #expect(await rig.boardPlays(true))

    // No token; another session's token; no cookie at all; another site's Origin; a request a browser says
    // another site started; a name that is not this server's.
    let noToken = try await browser.send(.POST, "/page/actions/stop-all", form: [], headers: [("Origin", browser.base)])
    #expect(noToken.status == 403 && noToken.body.contains("the form&#39;s token is not this session&#39;s"))
    let stranger = PageBrowser(port: rig.port)
    let strangerToken = try #require(try await stranger.send(.GET, "/page").formToken)
    #expect(try await browser.press("/page/actions/stop-all", [], token: strangerToken).status == 403)
    let cookieless = try await browser.send(
      .POST, "/page/actions/stop-all", form: [("csrf", token)], headers: [("Origin", browser.base)],
      keepCookie: false)
    #expect(cookieless.status == 403)
    let foreign = try await browser.send(
      .POST, "/page/actions/stop-all", form: [("csrf", token)], headers: [("Origin", "http://evil.example")])
    #expect(foreign.status == 403)
    let crossSite = try await browser.send(
      .POST, "/page/actions/stop-all", form: [("csrf", token)], headers: [("Sec-Fetch-Site", "cross-site")])
    #expect(crossSite.status == 403)
    let rebound = try await browser.send(.GET, "/page", headers: [("Host", "evil.example")])
    #expect(rebound.status == 403)
    let json = try await browser.send(
      .POST, "/page/actions/stop-all", form: [("csrf", token)], headers: [("Content-Type", "text/plain")])
    #expect(json.status == 415)
    let status = try await rig.send(.GET, "/v1/status")
    #expect(status.body.contains(#""playing_call":"c2""#), "still ringing after every forged request")

    let stopAll = try await browser.press("/page/actions/stop-all", [("back", "https://evil.example/")], token: token)
    #expect(stopAll.status == 303 && stopAll.location == "/page", "a form names no place outside the page")
    #expect(await rig.boardPlays(false))
    try await stranger.shutdown()
    try await browser.shutdown()
    try await rig.stop()
  }

  /// The setup page's Pair button reaches the daemon's `pair` request, as `callalert kdeconnect pair` does: here
  /// without a `kdeconnect:` section, so the daemon's answer says what to do; an empty name never leaves the page.
  @Test func thePairButtonAsksTheDaemonAndShowsItsAnswer() async throws {
    let rig = try await HTTPDaemonRig.start()
    let browser = PageBrowser(port: rig.port)
    let token = try #require(try await browser.send(.GET, "/page/setup").formToken)
    let pair = try await browser.press("/page/actions/pair", [("device", "Pixel 7")], token: token)
    #expect(pair.status >= 400 && pair.body.contains("KDE Connect is off"), "\(pair.status) \(pair.body)")
    let empty = try await browser.press("/page/actions/pair", [("device", "")], token: token)
    #expect(empty.status == 400 && empty.body.contains("device"), "\(empty.body)")
    try await browser.shutdown()
    try await rig.stop()
  }

  @Test func doNotDisturbSwitchedOnThePageIsKeptOverARestart() async throws {
    let rig = try await HTTPDaemonRig.start()
    let browser = PageBrowser(port: rig.port)
    let token = try #require(try await browser.send(.GET, "/page/quiet").formToken)
    let on = try await browser.press("/page/actions/dnd", [("mode", "on"), ("back", "/page/quiet")], token: token)
    #expect(on.status == 303 && on.location == "/page/quiet")
    #expect(try await rig.send(.GET, "/v1/dnd").body.contains(#""mode":"on""#))
    let wrong = try await browser.press("/page/actions/dnd", [("mode", "onn")], token: token)
    #expect(
      wrong.status == 400 && wrong.body.contains("is not one of on, off, scheduled; did you mean &#39;on&#39;?"),
      "\(wrong.body)")
    let kept = rig.directory.appendingPathComponent("history-dnd.json")
    #expect(FileManager.default.fileExists(atPath: kept.path))
    try await browser.shutdown()
    try await rig.stop(keepingDirectory: true)

    let again = try await HTTPDaemonRig.start(in: rig.directory)
    // Switched back before the server listened: the first answer has it.
    #expect(try await again.send(.GET, "/v1/dnd").body.contains(#""mode":"on""#))
    try await again.stop()
  }

  /// "On for an hour" and "on until a time" on the page: the mode says until when, the API's status has the
  /// end, the end is kept over a restart; a time that is none is refused naming the field.
  @Test func doNotDisturbForAWhileFromThePage() async throws {
    let rig = try await HTTPDaemonRig.start()
    let browser = PageBrowser(port: rig.port)
    let quiet = try await browser.send(.GET, "/page/quiet")
    let token = try #require(quiet.formToken)
    #expect(quiet.body.contains(#"id="dnd-hour-q""#) && quiet.body.contains(#"<input type="time" id="dnd-until-q""#))
    let hour = try await browser.press(
      "/page/actions/dnd", [("mode", "on"), ("for", "1h"), ("back", "/page/quiet")], token: token)
    #expect(hour.status == 303)
    let status = try await rig.send(.GET, "/v1/dnd").body
    #expect(status.contains(#""mode":"on""#) && status.contains(#""until":""#), "\(status)")
    #expect(try await browser.send(.GET, "/page/quiet").body.contains("Do not disturb is <strong>on</strong> until "))
    let until = try await browser.press(
      "/page/actions/dnd", [("mode", "on"), ("until", "07:00"), ("back", "/page/quiet")], token: token)
    #expect(until.status == 303)
    let bad = try await browser.press("/page/actions/dnd", [("mode", "on"), ("until", "25:00")], token: token)
    #expect(bad.status == 400 && bad.body.contains("is not a clock time such as 07:00"), "\(bad.body)")
    let alone = try await browser.press("/page/actions/dnd", [("for", "1h")], token: token)
    #expect(alone.status == 400 && alone.body.contains("give mode too"), "\(alone.body)")
    try await browser.shutdown()
    try await rig.stop(keepingDirectory: true)

    let kept = try String(contentsOf: rig.directory.appendingPathComponent("history-dnd.json"), encoding: .utf8)
    #expect(kept.contains(#""until""#), "\(kept)")
    let again = try await HTTPDaemonRig.start(in: rig.directory)
    let restored = try await again.send(.GET, "/v1/dnd").body
    #expect(restored.contains(#""mode":"on""#) && restored.contains(#""until":""#), "\(restored)")
    try await again.stop(keepingDirectory: true)

    // A switch whose end passed while the daemon was stopped is not made again.
    try Data(#"{"mode":"on","until":"2020-01-01T00:00:00Z"}"#.utf8).write(
      to: rig.directory.appendingPathComponent("history-dnd.json"))
    let later = try await HTTPDaemonRig.start(in: rig.directory)
    let ended = try await later.send(.GET, "/v1/dnd").body
    #expect(ended.contains(#""mode":"off""#) && !ended.contains("until"), "\(ended)")
    try await later.stop()
  }

  /// The quiet hours changed on the page: checked with the config file's errors (nothing saved on an error),
  /// saved beside the history, in force at once and over a restart; back to the config file's on request.
  @Test func theQuietHoursAreChangedOnThePage() async throws {
    let rig = try await HTTPDaemonRig.start()
    let browser = PageBrowser(port: rig.port)
    let quiet = try await browser.send(.GET, "/page/quiet")
    let token = try #require(quiet.formToken)
    #expect(quiet.body.contains(#"<textarea id="quiet-text" name="text""#), "\(quiet.body)")
    #expect(quiet.body.contains("do_not_disturb:\n  mode: off"))
    let bad = "do_not_disturb:\n  mode: scheduled\n  quiet_hours:\n    - {from: \"22:00\", to: \"25:00\"}\n"
    let check = try await browser.press("/page/quiet/check.part", [("text", bad)], token: token)
    #expect(
      check.status == 200 && check.body.contains("quiet-hours:4:27: do_not_disturb.quiet_hours[0].to"),
      "\(check.body)")
    let refused = try await browser.press("/page/actions/quiet-hours", [("text", bad)], token: token)
    #expect(refused.status == 400 && refused.body.contains("Not saved"), "\(refused.body)")
    let kept = rig.directory.appendingPathComponent("history-quiet-hours.yaml")
    #expect(!FileManager.default.fileExists(atPath: kept.path))

    let good =
      "do_not_disturb:\n  mode: scheduled\n  time_zone: Europe/Berlin\n  quiet_hours:\n"
      + "    - {days: weekdays, from: \"22:00\", to: \"07:00\"}\n  allowed_callers: [\"+4930123456\"]\n"
    let saved = try await browser.press("/page/actions/quiet-hours", [("text", good)], token: token)
    #expect(saved.status == 303 && saved.location == "/page/quiet", "\(saved.status) \(saved.body)")
    #expect(FileManager.default.fileExists(atPath: kept.path))
    let after = try await browser.send(.GET, "/page/quiet").body
    #expect(
      after.contains("22:00-07:00 Mon, Tue, Wed, Thu, Fri (Europe/Berlin)") && after.contains("+4930123456"),
      "\(after)")
    #expect(after.contains("As changed on this page"))
    #expect(try await rig.send(.GET, "/v1/dnd").body.contains(#""configured":"scheduled""#))
    try await browser.shutdown()
    try await rig.stop(keepingDirectory: true)

    let again = try await HTTPDaemonRig.start(in: rig.directory)
    #expect(try await again.send(.GET, "/v1/dnd").body.contains(#""configured":"scheduled""#))
    let browser2 = PageBrowser(port: again.port)
    let token2 = try #require(try await browser2.send(.GET, "/page/quiet").formToken)
    let reset = try await browser2.press("/page/actions/quiet-hours-reset", [], token: token2)
    #expect(reset.status == 303)
    #expect(!FileManager.default.fileExists(atPath: kept.path))
    #expect(try await again.send(.GET, "/v1/dnd").body.contains(#""configured":"off""#))
    try await browser2.shutdown()
    try await again.stop()
  }

  @Test func withATokenThePageAsksForItOnce() async throws {
    let rig = try await HTTPDaemonRig.start(extraHTTP: "token_file: token") { directory in
      try HTTPDaemonRig.writeSecret(
        "page-secret\n", at: directory.appendingPathComponent("token").path, mode: 0o600)
    }
    let browser = PageBrowser(port: rig.port)
    let first = try await browser.send(.GET, "/page")
    #expect(first.status == 303 && first.location == "/page/login")
    let form = try await browser.send(.GET, "/page/login")
    let token = try #require(form.formToken)
    let wrong = try await browser.press("/page/login", [("token", "guess")], token: token)
    #expect(wrong.status == 401)
    let right = try await browser.press("/page/login", [("token", "page-secret")], token: token)
    #expect(right.status == 303 && right.location == "/page")
    let page = try await browser.send(.GET, "/page")
    #expect(page.status == 200 && page.body.contains("<h1>Live</h1>"))
    #expect(try await rig.send(.GET, "/v1/status").status == 401, "the API still asks its bearer token")
    try await browser.shutdown()
    try await rig.stop()
  }

  /// The button beside one missed call acknowledges it alone: it leaves the daemon's missed calls and its
  /// history row says so; the API does the same with `id`, and says when no such call waits.
  @Test func oneMissedCallIsAcknowledgedByItsOwnButton() async throws {
    let rig = try await HTTPDaemonRig.start()
    let browser = PageBrowser(port: rig.port)
    for id in ["p1", "p2", "p3"] {
      let call = try await rig.send(.POST, "/v1/calls", body: #"{"id":"\#(id)","name":"Bob","level":"passive"}"#)
      #expect(call.status == 200, "\(call.body)")
    }
    let page = try await browser.send(.GET, "/page")
    #expect(page.body.contains(#"name="call" value="p1""#))
    let token = try #require(page.formToken)
    let ack = try await browser.press(
      "/page/actions/ack", [("call", "p1"), ("back", "/page/history")], token: token)
    #expect(ack.status == 303 && ack.location == "/page/history", "\(ack.body)")
    let status = try await rig.send(.GET, "/v1/status")
    #expect(!status.body.contains(#""id":"p1""#) && status.body.contains(#""id":"p2""#), "\(status.body)")
    let history = try await browser.send(.GET, "/page/history?missed=1")
    #expect(!history.body.contains(#"name="call" value="p1""#) && history.body.contains(#"name="call" value="p2""#))

    let api = try await rig.send(.POST, "/v1/ack", body: #"{"id":"p2"}"#)
    #expect(api.status == 200 && api.body.contains(#""outcome":"acknowledged""#), "\(api.body)")
    let again = try await rig.send(.POST, "/v1/ack", body: #"{"id":"p2"}"#)
    #expect(again.status == 200 && again.body.contains(#""outcome":"not-missed""#), "\(again.body)")
    let bad = try await browser.press("/page/actions/ack", [("call", ""), ("back", "/page")], token: token)
    #expect(bad.status == 400, "\(bad.body)")
    let left = try await rig.send(.GET, "/v1/status")
    #expect(left.body.contains(#""id":"p3""#) && !left.body.contains(#""id":"p2""#), "\(left.body)")
    try await browser.shutdown()
    try await rig.stop()
  }

  @Test func thePagesEventsArriveAsTheAPIs() async throws {
    let rig = try await HTTPDaemonRig.start()
    let browser = PageBrowser(port: rig.port)
    _ = try await browser.send(.GET, "/page")
    let cookie = try #require(browser.cookie)
    let events = EventReader(rig.base + "/page/events", headers: [("Cookie", cookie)])
    #expect(await events.next()?.event == nil)  // the opening retry: block
    _ = try await rig.send(.POST, "/v1/calls", body: #"{"id":"c3","name":"Bob"}"#)
    let ringing = await events.next()
    #expect(ringing?.event == "ringing" && ringing?.data?.contains(#""id":"c3""#) == true)
    events.close()
    let check = try await browser.press(
      "/page/patterns/check", [("text", "version: 1\npatterns:\n  - name: office\n    cadance: UK\n")],
      token: try #require(try await browser.send(.GET, "/page/patterns").formToken))
    #expect(check.status == 200 && check.body.contains("editor:4:5: error:"), "without JavaScript, the form")
    let history = try await browser.send(.GET, "/page/history")
    #expect(history.status == 200 && history.body.contains("<caption>Calls, newest first</caption>"))
    try await browser.shutdown()
    try await rig.stop()
  }
}
