import CallAlertControl

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The live view, drawn from the daemon's status: the calls ringing now as one large banner (`role="alert"`,
/// so a screen reader says it at once), the missed calls, do-not-disturb, and each board as it is now. Pure:
/// the status and the session's form token in, HTML out.
///
/// Each section carries `data-state`, a summary of what it shows without the seconds that tick away, so the
/// script replaces a section only when it changed: a banner put in again would be announced again.
struct LivePage {
  let status: StatusReport
  let csrf: String
  /// The boards the config makes vibrate only.
  var vibrateOnlyBoards: [String] = []
  /// The boards that are USB lights, with their kind.
  var lightBoards: [String: String] = [:]
  /// The zone times are shown in (the quiet hours', else the daemon's).
  var timeZone: TimeZone = .current

  /// The tab's title: who is calling while a call rings (a deaf user who looks at the tab sees it there too).
  var title: String {
    guard let first = status.calls.first else { return "Live - CallAlert" }
    let more = status.calls.count > 1 ? " and \(status.calls.count - 1) more" : ""
    return "Ringing: \(Self.caller(first))\(more) - CallAlert"
  }

  /// The whole document.
  var document: String {
    PageLayout.document(title: title, section: .live, heading: "Live", body: part)
  }

  /// The sections alone, in the `#live` element the script replaces.
  var part: String {
    "<div id=\"live\" data-title=\"\(HTML.escape(title))\">" + ringing + missed + doNotDisturb + boards + "</div>"
  }

  /// Who calls, as people read it: the name and the number, or what is known.
  static func caller(_ call: StatusReport.Call) -> String {
    switch (call.name, call.caller) {
    case (let name?, let number?) where !name.isEmpty: "\(name) (\(number))"
    case (let name?, nil) where !name.isEmpty: name
    case (_, let number?): number
    default: "an unknown caller"
    }
  }

  var ringing: String {
    let state = status.calls.map { "\($0.id)@\($0.playingOn.joined(separator: ","))" }.joined(separator: ";")
    guard !status.calls.isEmpty else {
      return section("ringing", state: state, "<h2 id=\"ringing-heading\">Calls</h2><p>No call is ringing.</p>")
    }
    var html = "<div class=\"banner\" role=\"alert\">"
    html += "<h2 id=\"ringing-heading\">Ringing now</h2><ul class=\"calls\">"
    for (index, call) in status.calls.enumerated() {
      let seconds = (call.remainingMs + 999) / 1_000
      html += "<li class=\"call\"><p class=\"who\">\(HTML.escape(Self.caller(call)))</p><p class=\"detail\">"
      html += call.source.map { "from \(HTML.escape($0)), " } ?? ""
      html += "level \(HTML.escape(call.level)), "
      html += "<span class=\"left\" data-remaining-ms=\"\(call.remainingMs)\">\(seconds) s left</span>"
      let places = call.playingOn.isEmpty ? "waiting for a board" : "on " + call.playingOn.joined(separator: ", ")
      html += ", \(HTML.escape(places))\(call.silent ? ", motor only" : "")</p>"
      html += PageLayout.actionForm(
        PagePaths.stop, csrf: csrf, fields: [("call", call.id), ("back", PagePaths.live)],
        button: "Stop this call", id: "stop-\(index)")
      html += "</li>"
    }
    html += "</ul>"
    html += PageLayout.actionForm(
      PagePaths.stopAll, csrf: csrf, fields: [("back", PagePaths.live)], button: "Stop all", id: "stop-all",
      style: "button strong")
    html += "</div>"
    return section("ringing", state: state, html)
  }

  var missed: String {
    let state = status.missed.map(\.id).joined(separator: ";")
    var html = "<h2 id=\"missed-heading\">Missed calls</h2>"
    guard !status.missed.isEmpty else { return section("missed", state: state, html + "<p>No missed calls.</p>") }
    html += "<ul class=\"missed\">"
    for (index, call) in status.missed.reversed().enumerated() {
      html += "<li><span>\(HTML.escape(Self.caller(call)))</span>"
      html += PageLayout.actionForm(
        PagePaths.acknowledge, csrf: csrf, fields: [("call", call.id), ("back", PagePaths.live)],
        button: "Acknowledge", id: "acknowledge-\(index)", style: "button small",
        label: "Acknowledge the missed call from \(Self.caller(call))")
      html += "</li>"
    }
    html += "</ul>"
    if status.calls.isEmpty {
      html += PageLayout.actionForm(
        PagePaths.acknowledge, csrf: csrf, fields: [("back", PagePaths.live)],
        button: "Acknowledge \(status.missed.count) missed call\(status.missed.count == 1 ? "" : "s")",
        id: "acknowledge")
    }
    return section("missed", state: state, html)
  }

  var doNotDisturb: String {
    let dnd = status.doNotDisturb
    let state = "\(dnd.mode),\(dnd.active),\(dnd.silent),\(dnd.until ?? "")"
    var html = "<h2 id=\"dnd-heading\">Do not disturb</h2>"
    html += "<p class=\"dnd\">\(QuietPage.sentence(dnd, timeZone: timeZone))</p>"
    html += QuietPage.switches(dnd, csrf: csrf, back: PagePaths.live)
    return section("dnd", state: state, html)
  }

  var boards: String {
    var state: [String] = []
    var html = "<h2 id=\"boards-heading\">Boards</h2><ul class=\"boards\">"
    for board in status.boards {
      let call = board.playingCall.flatMap { id in status.calls.first { $0.id == id } }
      let drawing = BoardDrawing(
        board: board, call: call, missedWaiting: !status.missed.isEmpty,
        vibrateOnly: vibrateOnlyBoards.contains(board.name), light: lightBoards[board.name])
      state.append(drawing.state)
      html += drawing.html
    }
    html += "</ul>"
    if status.boards.isEmpty { html += "<p>No board is configured.</p>" }
    return section("boards", state: state.joined(separator: ";"), html)
  }

  private func section(_ id: String, state: String, _ content: String) -> String {
    "<section id=\"\(id)\" aria-labelledby=\"\(id)-heading\" data-state=\"\(HTML.escape(state))\">\(content)</section>"
  }
}
