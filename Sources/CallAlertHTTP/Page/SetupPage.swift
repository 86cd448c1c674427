import CallAlertControl

/// How the setup stands, from the daemon's status: each board (where the daemon looks, connected or why not,
/// with what to do), each source of calls (a FRITZ!Box, a PBX's AMI, MQTT, each SIP account, each phone over
/// KDE Connect: connected or failing and why, and when it tries again; a phone asking to pair, with a button
/// that accepts it), and the call history. What only `callalert doctor` can check
/// (the udev rule, the port's permissions for another user, the firmware image) is pointed to.
struct SetupPage {
  let status: StatusReport
  /// Whether the daemon can run the doctor's checks for the page.
  var doctorOffered = false
  /// The doctor's findings, once asked for.
  var findings: [SetupFinding]? = nil
  var csrf = ""

  var document: String {
    var body = "<section aria-labelledby=\"boards-heading\"><h2 id=\"boards-heading\">Boards</h2>"
    body += "<table><caption>Each configured board</caption><thead><tr><th scope=\"col\">Board</th>"
    body +=
      "<th scope=\"col\">Where</th><th scope=\"col\">State</th><th scope=\"col\">What to do</th></tr></thead><tbody>"
    for board in status.boards {
      body += "<tr><td>\(HTML.escape(board.name))</td><td>\(HTML.escape(board.port ?? "auto"))</td>"
      body += "<td>\(HTML.escape(board.connected ? board.link ?? "connected" : board.link ?? "disconnected"))</td>"
      body +=
        "<td>\(HTML.escape(board.problem ?? (board.connected ? "nothing" : "wait: the daemon tries again")))</td></tr>"
    }
    body += "</tbody></table></section>"
    body += "<section aria-labelledby=\"sources-heading\"><h2 id=\"sources-heading\">Sources of calls</h2>"
    if let sources = status.sources, !sources.isEmpty {
      body += "<table><caption>Phone systems, MQTT and SIP accounts</caption><thead><tr>"
      body += "<th scope=\"col\">Source</th><th scope=\"col\">Kind</th><th scope=\"col\">Address</th>"
      body += "<th scope=\"col\">State</th><th scope=\"col\">Why</th></tr></thead><tbody>"
      for source in sources {
        var why = source.reason ?? ""
        if source.failures > 0 { why += (why.isEmpty ? "" : "; ") + "\(source.failures) failed in a row" }
        if let next = source.nextAttemptMs { why += (why.isEmpty ? "" : "; ") + "next try in \(next / 1_000) s" }
        body += "<tr><td>\(HTML.escape(source.name))</td><td>\(HTML.escape(source.kind))</td>"
        body += "<td>\(HTML.escape(source.address))</td><td>\(HTML.escape(source.state))</td>"
        body += "<td>\(HTML.escape(why.isEmpty ? "-" : why))"
        if source.kind == "kdeconnect", source.state == "pairing-requested" {
          // The phone asked to pair: accepting it here is `callalert kdeconnect pair <phone>`.
          body += PageLayout.actionForm(
            PagePaths.pair, csrf: csrf, fields: [("device", source.name)], button: "Pair with \(source.name)",
            id: "pair-\(source.name)")
        }
        body += "</td></tr>"
      }
      body += "</tbody></table>"
    } else {
      body += "<p>Calls come from the control socket, standard input and HTTP; the config names no phone system, "
      body += "MQTT broker or SIP account (<code>sources:</code>, <code>mqtt:</code>, <code>sip:</code>).</p>"
    }
    body += "</section>"
    body += "<section aria-labelledby=\"history-heading\"><h2 id=\"history-heading\">Call history</h2>"
    if let history = status.history {
      // `summary` words what is missing; a whole history has nothing missing to say.
      let place = history.path.map { " (\($0))" } ?? ""
      body += "<p>\(HTML.escape(history.isWhole ? "Every call is written\(place)." : history.summary))</p>"
    } else {
      body += "<p>Not known.</p>"
    }
    body += "</section>"
    body += "<section aria-labelledby=\"doctor-heading\"><h2 id=\"doctor-heading\">More checks</h2>"
    body += "<p><code>callalert doctor</code> checks what the status does not say: the config file, the socket's "
    body += "mode, the udev rule, whether you may open each board's port, a board's firmware and pattern table, "
    body += "the history's folder, each source's host; each problem with its fix.</p>"
    if doctorOffered {
      body += PageLayout.actionForm(
        PagePaths.doctor, csrf: csrf, button: "Run the checks (a few seconds)", id: "run-doctor")
    }
    if let findings { body += Self.table(findings) }
    body += "</section>"
    return PageLayout.document(title: "Setup - CallAlert", section: .setup, heading: "Setup", body: body)
  }

  /// The doctor's findings, problems first; each result in words (not in colour alone).
  static func table(_ findings: [SetupFinding]) -> String {
    let order = ["error": 0, "warning": 1, "skipped": 2, "ok": 3]
    let sorted = findings.enumerated().sorted {
      (order[$0.element.status] ?? 4, $0.offset) < (order[$1.element.status] ?? 4, $1.offset)
    }.map(\.element)
    let errors = findings.filter { $0.status == "error" }.count
    var html =
      "<p role=\"status\" id=\"doctor-summary\">\(errors == 0 ? "No errors" : "\(errors) error\(errors == 1 ? "" : "s")")"
    html += " in \(findings.count) checks.</p>"
    html += "<table id=\"doctor-findings\"><caption>What callalert doctor found, problems first</caption><thead><tr>"
    html += "<th scope=\"col\">Check</th><th scope=\"col\">Result</th><th scope=\"col\">What was found</th>"
    html += "<th scope=\"col\">What to do</th></tr></thead><tbody>"
    for finding in sorted {
      html += "<tr class=\"finding-\(HTML.escape(finding.status))\"><td>\(HTML.escape(finding.check))</td>"
      html += "<td>\(HTML.escape(finding.status))</td><td>\(HTML.escape(finding.summary))</td>"
      html += "<td>\(finding.fix.map { "<code>\(HTML.escape($0))</code>" } ?? "-")</td></tr>"
    }
    return html + "</tbody></table>"
  }
}
