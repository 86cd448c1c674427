import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The call history: newest first, the missed calls or all of them, and the missed ones acknowledged from
/// here. Pure: the records and the form token in, HTML out; times in the daemon's time zone.
struct HistoryPage {
  let calls: [CallRecord]
  let missedOnly: Bool
  /// Why the list may be incomplete (records pending or lost), shown above it.
  let problem: String?
  let csrf: String
  var timeZone: TimeZone = .current

  var document: String {
    let back = missedOnly ? PagePaths.history + "?missed=1" : PagePaths.history
    var body = "<nav aria-label=\"Filter\" class=\"filter\"><ul>"
    body += "<li><a href=\"\(PagePaths.history)?missed=1\"\(missedOnly ? " aria-current=\"page\"" : "")>Missed</a></li>"
    body += "<li><a href=\"\(PagePaths.history)\"\(missedOnly ? "" : " aria-current=\"page\"")>All</a></li>"
    body += "</ul></nav>"
    if let problem { body += "<p class=\"problem\" role=\"status\">\(HTML.escape(problem))</p>" }
    let waiting = calls.filter { $0.missed && !$0.acknowledged }.count
    if waiting > 0 {
      body += PageLayout.actionForm(
        PagePaths.acknowledge, csrf: csrf, fields: [("back", back)],
        button: "Acknowledge the missed calls", id: "acknowledge-history")
    }
    if calls.isEmpty {
      body += "<p>\(missedOnly ? "No missed calls." : "No calls yet.")</p>"
    } else {
      body += "<table><caption>\(missedOnly ? "Missed calls" : "Calls"), newest first</caption>"
      body += "<thead><tr><th scope=\"col\">When</th><th scope=\"col\">Caller</th><th scope=\"col\">What happened</th>"
      body += "<th scope=\"col\">Boards</th></tr></thead><tbody>"
      for (index, call) in calls.enumerated() {
        let waits = call.missed && !call.acknowledged
        body += "<tr\(waits ? " class=\"unacknowledged\"" : "")>"
        body += "<td>\(HTML.escape(time(call.receivedAt)))</td>"
        body += "<td>\(HTML.escape(caller(call)))</td>"
        body += "<td>\(HTML.escape(outcome(call)))"
        if waits {
          body += PageLayout.actionForm(
            PagePaths.acknowledge, csrf: csrf, fields: [("call", call.id), ("back", back)], button: "Acknowledge",
            id: "acknowledge-\(index)", style: "button small",
            label: "Acknowledge the missed call from \(caller(call)) at \(time(call.receivedAt))")
        }
        body += "</td>"
        body += "<td>\(HTML.escape(call.boards.isEmpty ? "none" : call.boards.joined(separator: ", ")))</td></tr>"
      }
      body += "</tbody></table>"
    }
    return PageLayout.document(title: "History - CallAlert", section: .history, heading: "History", body: body)
  }

  func caller(_ call: CallRecord) -> String {
    switch (call.callerName, call.callerNumber) {
    case (let name?, let number?) where !name.isEmpty: "\(name) (\(number))"
    case (let name?, nil) where !name.isEmpty: name
    case (_, let number?): number
    default: "unknown"
    }
  }

  func outcome(_ call: CallRecord) -> String {
    // A reason that only repeats the outcome ("acknowledged (acknowledged)", "hung-up (hangup)") is left out.
    let letters = { (text: String) in text.filter(\.isLetter) }
    let reason = call.reason.flatMap { letters($0) == letters(call.outcome.rawValue) ? nil : " (\($0))" }
    var text = call.outcome.rawValue + (reason ?? "")
    if call.missed { text += call.acknowledged ? ", missed, acknowledged" : ", missed, not acknowledged" }
    return text
  }

  func time(_ date: Date) -> String {
    Timestamp.dateAndClock(date, timeZone: timeZone)
  }
}
