import CallAlertControl
import CallAlertEngine
import CallAlertInputs
import CallAlertText
import CallAlertValues
internal import HTTPTypes
internal import Hummingbird
import Logging

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The page's routes (docs/PAGE.md): documents rendered here from the daemon's answers, plain forms that post
/// to `/page/actions/...` and come back with a 303, the live view's sections for the script, and the events.
/// Each action is the control request the socket would take, handed to the same handler.
extension HTTPAPI {
  /// Adds the page's routes, behind ``PageMiddleware``; call before the API's middleware is added, which
  /// then leaves them alone.
  func addPage(to router: Router<Context>) {
    let page = router.group().add(
      middleware: PageMiddleware(
        token: configuration.token, sessions: sessions,
        origins: RequestOriginPolicy(
          allowedHosts: configuration.allowedHosts, tokenConfigured: configuration.token != nil),
        bodyLimit: configuration.limits.bodyBytes, logger: logger))
    page.get("/") { _, _ in PageAnswer.redirect(to: PagePaths.live) }
    page.get(RouterPath(PagePaths.style)) { _, _ in PageAnswer.body(PageStyle.css, type: "text/css; charset=utf-8") }
    page.get(RouterPath(PagePaths.script)) { _, _ in
      PageAnswer.body(PageScript.javascript, type: "text/javascript; charset=utf-8")
    }
    page.get(RouterPath(PagePaths.live)) { request, _ in
      PageAnswer.html(
        LivePage(
          status: try await status(), csrf: try formToken(request), vibrateOnlyBoards: backend.vibrateOnlyBoards,
          lightBoards: backend.lightBoards, timeZone: backend.quietHours()?.timeZone ?? .current
        ).document)
    }
    page.get(RouterPath(PagePaths.livePart)) { request, _ in
      PageAnswer.html(
        LivePage(
          status: try await status(), csrf: try formToken(request), vibrateOnlyBoards: backend.vibrateOnlyBoards,
          lightBoards: backend.lightBoards, timeZone: backend.quietHours()?.timeZone ?? .current
        ).part)
    }
    page.get(RouterPath(PagePaths.events)) { request, _ in await events(request) }
    page.get(RouterPath(PagePaths.history)) { request, _ in
      let missedOnly = ["1", "true"].contains(request.uri.queryParameters["missed"].map(String.init) ?? "")
      let answer = await backend.handle(.history(missedOnly: missedOnly, limit: 200), "http")
      guard case .history(let calls, let problem) = answer else {
        if case .failure(let failure) = answer { throw ProblemDocument.failure(failure) }
        throw ProblemDocument.shuttingDown
      }
      let view = HistoryPage(
        calls: calls, missedOnly: missedOnly, problem: problem?.error, csrf: try formToken(request))
      return PageAnswer.html(view.document)
    }
    page.get(RouterPath(PagePaths.quiet)) { request, _ in
      let view = QuietPage(
        status: try await status(), configured: backend.quietHours(), csrf: try formToken(request),
        editor: backend.quietHoursEditor)
      return PageAnswer.html(view.document)
    }
    page.post(RouterPath(PagePaths.quietCheck)) { request, _ in
      let form = try await pageForm(request)
      let view = QuietPage(
        status: try await status(), configured: backend.quietHours(), csrf: try formToken(request),
        editor: backend.quietHoursEditor, editorText: form["text"] ?? "")
      return PageAnswer.html(view.document)
    }
    page.post(RouterPath(PagePaths.quietCheckPart)) { request, _ in
      let form = try await pageForm(request)
      return PageAnswer.html(QuietPage.result(text: form["text"] ?? "", editor: backend.quietHoursEditor))
    }
    page.post(RouterPath(PagePaths.quietSave)) { request, _ in
      let form = try await pageForm(request)
      guard let editor = backend.quietHoursEditor else { throw ProblemDocument.notOffered("changing the quiet hours") }
      let text = form["text"] ?? ""
      return try await quietAnswer(await editor.save(text), text: text, request)
    }
    page.post(RouterPath(PagePaths.quietReset)) { request, _ in
      _ = try await pageForm(request)
      guard let editor = backend.quietHoursEditor else { throw ProblemDocument.notOffered("changing the quiet hours") }
      return try await quietAnswer(await editor.reset(), text: nil, request)
    }
    page.get(RouterPath(PagePaths.patterns)) { request, _ in
      let boards = try await status().boards.map(\.name)
      let flashing = backend.patternFlashing
      let view = PatternsPage(
        file: backend.patternsFile, boards: boards, csrf: try formToken(request),
        editorText: flashing?.text() ?? PatternEditor.example, flashing: flashing)
      return PageAnswer.html(view.document)
    }
    page.get(RouterPath(PagePaths.flashPart)) { _, _ in
      PageAnswer.html(FlashProgress(states: backend.patternFlashing?.progress() ?? []).html)
    }
    page.post(RouterPath(PagePaths.patternFlash)) { request, _ in
      let form = try await pageForm(request)
      guard let flashing = backend.patternFlashing else {
        throw ProblemDocument.notOffered("saving a pattern file (name one in the config: patterns.file)")
      }
      let text = form["text"] ?? ""
      guard let refusal = await flashing.flash(text) else {
        return PageAnswer.redirect(to: PagePaths.patterns + "#flash")
      }
      let view = PatternsPage(
        file: backend.patternsFile, boards: try await status().boards.map(\.name), csrf: try formToken(request),
        editorText: text, flashing: flashing, flashRefusal: refusal)
      return PageAnswer.html(view.document, status: .badRequest)
    }
    page.get(RouterPath(PagePaths.setup)) { request, _ in
      let view = SetupPage(
        status: try await status(), doctorOffered: backend.doctor != nil, csrf: try formToken(request))
      return PageAnswer.html(view.document)
    }
    page.post(RouterPath(PagePaths.doctor)) { request, _ in
      _ = try await pageForm(request)
      let findings = await backend.doctor?() ?? []
      let view = SetupPage(
        status: try await status(), doctorOffered: backend.doctor != nil, findings: findings,
        csrf: try formToken(request))
      return PageAnswer.html(view.document)
    }
    page.post(RouterPath(PagePaths.patternCheck)) { request, _ in
      let form = try await pageForm(request)
      let boards = try await status().boards.map(\.name)
      let view = PatternsPage(
        file: backend.patternsFile, boards: boards, csrf: try formToken(request), editorText: form["text"] ?? "",
        flashing: backend.patternFlashing)
      return PageAnswer.html(view.document)
    }
    page.post(RouterPath(PagePaths.patternCheckPart)) { request, _ in
      let form = try await pageForm(request)
      return PageAnswer.html(PatternEditor(text: form["text"] ?? "", csrf: "").result)
    }
    page.post(RouterPath(PagePaths.testRing)) { request, _ in
      let form = try await pageForm(request)
      let boards = try await status().boards.map(\.name)
      guard let board = form["board"], boards.contains(board) else {
        throw ProblemDocument.badInput(
          "\"\(DisplayText.excerpt(form["board"] ?? ""))\" is not a board; the boards are "
            + boards.joined(separator: ", "), field: "board", location: "form")
      }
      guard let pattern = form["pattern"], !pattern.isEmpty, pattern.utf8.count <= 64 else {
        throw ProblemDocument.badInput("name a pattern", field: "pattern", location: "form")
      }
      // Critical, so that quiet hours do not hold back what the person in front of the board asked for.
      let call = IncomingCall(
        id: "test-ring-\(UInt32.random(in: 0...UInt32.max))", callerName: "Test ring", level: .critical,
        patternHint: pattern, boards: [board])
      return try await act(.input(.call(call)), back: PagePaths.live)
    }
    page.get(RouterPath(PagePaths.login)) { request, _ in
      guard configuration.token != nil else { return PageAnswer.redirect(to: PagePaths.live) }
      return PageAnswer.html(LoginPage(csrf: try formToken(request), failed: false).document)
    }
    page.post(RouterPath(PagePaths.login)) { request, _ in
      let form = try await pageForm(request)
      guard let token = configuration.token else { return PageAnswer.redirect(to: PagePaths.live) }
      guard let given = form["token"], ConstantTime.equal(Array(given.utf8), Array(token.utf8)) else {
        logger.notice("http: page login refused: the token does not match")
        return PageAnswer.html(
          LoginPage(csrf: try formToken(request), failed: true).document, status: .unauthorized)
      }
      // A new session (a new id): one fixed before the login is not the one that is let in.
      var response = PageAnswer.redirect(to: PagePaths.live)
      response.headers[.setCookie] = sessions.setCookie(sessions.newSession(authenticated: true))
      return response
    }
    page.post(RouterPath(PagePaths.stop)) { request, _ in
      let form = try await pageForm(request)
      let id = form["call"] ?? ""
      if let problem = CallID.problem(id) { throw ProblemDocument.badInput(problem, field: "call", location: "form") }
      return try await act(.input(.answered(callID: id)), back: form["back"])
    }
    page.post(RouterPath(PagePaths.pair)) { request, _ in
      let form = try await pageForm(request)
      let device = form["device"] ?? ""
      guard !device.isEmpty, device.utf8.count <= 256 else {
        throw ProblemDocument.badInput(
          "device: a phone's name or id, up to 256 bytes", field: "device", location: "form")
      }
      return try await act(.pair(device: device), back: PagePaths.setup)
    }
    page.post(RouterPath(PagePaths.stopAll)) { request, _ in
      let form = try await pageForm(request)
      return try await act(.input(.acknowledge(board: nil)), back: form["back"])
    }
    page.post(RouterPath(PagePaths.acknowledge)) { request, _ in
      let form = try await pageForm(request)
      // With `call`, the one missed call of its row; without, every missed call.
      guard let id = form["call"] else { return try await act(.input(.acknowledge(board: nil)), back: form["back"]) }
      if let problem = CallID.problem(id) { throw ProblemDocument.badInput(problem, field: "call", location: "form") }
      return try await act(.input(.acknowledgeMissed(callID: id)), back: form["back"])
    }
    page.post(RouterPath(PagePaths.doNotDisturb)) { request, _ in
      let form = try await pageForm(request)
      var requests: [ControlRequest] = []
      if let text = form["mode"] {
        let modes = ["on", "off", "scheduled"]
        guard let mode = DoNotDisturbMode(rawValue: text) else {
          throw ProblemDocument.badInput(
            "\"\(DisplayText.excerpt(text))\" is not one of \(modes.joined(separator: ", "))"
              + Suggestion.hint(for: text, in: modes), field: "mode", location: "form")
        }
        requests.append(.input(.setDoNotDisturb(mode, until: try switchEnd(form))))
      } else if form["until"] != nil || form["for"] != nil {
        throw ProblemDocument.badInput(
          "until and for end a switch of mode: give mode too", field: nil, location: "form")
      }
      if let text = form["silent"] {
        guard let on = ["true": true, "false": false][text] else {
          throw ProblemDocument.badInput(
            "\"\(DisplayText.excerpt(text))\" is not true or false", field: "silent", location: "form")
        }
        requests.append(.input(.setSilent(on)))
      }
      guard !requests.isEmpty else {
        throw ProblemDocument.badInput(
          "give mode (on, off, scheduled), silent (true, false), or both", field: nil, location: "form")
      }
      for change in requests.dropLast() { _ = try await act(change, back: nil) }
      return try await act(requests[requests.count - 1], back: form["back"])
    }
  }

  /// When a switch from the page's form ends: `until` (a clock time, the next one in the quiet hours' zone, or a
  /// moment) or `for` (a duration), taken from now; nil when neither is given (or given empty).
  func switchEnd(_ form: FormBody) throws(ProblemDocument) -> Date? {
    let now = Date()
    let until = form["until"].flatMap { $0.isEmpty ? nil : $0 }
    let duration = form["for"].flatMap { $0.isEmpty ? nil : $0 }
    switch (until, duration) {
    case (nil, nil): return nil
    case (let text?, nil):
      guard let date = SwitchEnd.until(text, after: now, timeZone: backend.quietHours()?.timeZone ?? .current) else {
        throw ProblemDocument.badInput(
          "\"\(DisplayText.excerpt(text))\" is not \(SwitchEnd.expectedUntil)", field: "until", location: "form")
      }
      return date
    case (nil, let text?):
      guard let date = SwitchEnd.for(text, after: now) else {
        throw ProblemDocument.badInput(
          "\"\(DisplayText.excerpt(text))\" is not \(SwitchEnd.expectedFor)", field: "for", location: "form")
      }
      return date
    case (_?, _?):
      throw ProblemDocument.badInput("give until or for, not both", field: "for", location: "form")
    }
  }

  /// The answer to a save or reset of the quiet hours: back to the page when in force; the page with a note
  /// when saved but not in force; the page with the text and its errors (400) when refused.
  func quietAnswer(
    _ outcome: QuietHoursEditor.Outcome, text: String?, _ request: Request
  ) async throws(ProblemDocument)
    -> Response
  {
    var view = QuietPage(
      status: try await status(), configured: backend.quietHours(), csrf: try formToken(request),
      editor: backend.quietHoursEditor, editorText: text)
    switch outcome {
    case .applied:
      return PageAnswer.redirect(to: PagePaths.quiet)
    case .savedNotApplied(let why):
      view.note = "Saved, but not in force yet: \(why)"
      return PageAnswer.html(view.document)
    case .refused(let errors):
      view.note = "Not saved: \(errors.count) error\(errors.count == 1 ? "" : "s") below; nothing changed."
      return PageAnswer.html(view.document, status: .badRequest)
    }
  }

  /// The daemon's status, or a problem while it stops.
  func status() async throws(ProblemDocument) -> StatusReport {
    guard case .status(let report) = await backend.handle(.status, "http") else { throw .shuttingDown }
    return report
  }

  /// The form token of the request's session (``PageMiddleware`` hands every route a session).
  func formToken(_ request: Request) throws(ProblemDocument) -> String {
    guard let session = sessions.session(cookieHeader: request.headers[.cookie]) else {
      throw ProblemDocument("no-session", title: "Forbidden", status: 403, detail: "no session: load the page again")
    }
    return sessions.formToken(session)
  }

  /// A form the page posted: `application/x-www-form-urlencoded`, read within the limits, and carrying the
  /// form token of the session its cookie names (a page of another site cannot know it).
  func pageForm(_ request: Request) async throws(ProblemDocument) -> FormBody {
    let type = request.headers[.contentType].map { String($0.prefix { $0 != ";" }).lowercased() }
    guard type == "application/x-www-form-urlencoded" else {
      throw ProblemDocument(
        "unsupported-media-type", title: "Unsupported Media Type", status: 415,
        detail: "the page's forms are sent as application/x-www-form-urlencoded", field: "Content-Type",
        location: "header")
    }
    let form = try Self.form(try await readBody(request))
    guard let session = sessions.session(cookieHeader: request.headers[.cookie]),
      sessions.isFormToken(form["csrf"], of: session)
    else {
      throw ProblemDocument(
        "bad-form-token", title: "Forbidden", status: 403,
        detail: "the form's token is not this session's (the page may be older than the daemon's last start): "
          + "load the page again and press the button there", field: "csrf", location: "form")
    }
    return form
  }

  /// Hands one request to the daemon; a failure becomes a problem page, success a 303 back to where the
  /// button was (one of the page's own paths, never a place the form names otherwise).
  func act(_ request: ControlRequest, back: String?) async throws(ProblemDocument) -> Response {
    let response = await backend.handle(request, "http")
    if case .failure(let failure) = response { throw ProblemDocument.failure(failure) }
    let target = back.flatMap { PagePaths.returnable.contains($0) ? $0 : nil } ?? PagePaths.live
    return PageAnswer.redirect(to: target)
  }
}
