import CallAlertControl
import CallAlertEngine
import Foundation

/// Quiet hours and do-not-disturb: the mode now, one tap to switch it or silent mode, and the schedule and the
/// callers who break through as the config file has them. A switch made here is kept over a restart by the
/// daemon's add-on (docs/PAGE.md); the schedule itself is changed in the config file.
struct QuietPage {
  let status: StatusReport
  /// The config's `do_not_disturb:` as the daemon started with it; nil when not known.
  let configured: DoNotDisturbConfiguration?
  let csrf: String

  var document: String {
    var body = "<section aria-labelledby=\"now-heading\"><h2 id=\"now-heading\">Now</h2>"
    body += "<p class=\"dnd\">\(Self.sentence(status.doNotDisturb))</p>"
    body += Self.switches(status.doNotDisturb, csrf: csrf, back: PagePaths.quiet) + "</section>"
    body += "<section aria-labelledby=\"schedule-heading\"><h2 id=\"schedule-heading\">As configured</h2>"
    if let configured {
      body += "<dl>"
      body += "<dt>Mode at start</dt><dd>\(configured.mode.rawValue)</dd>"
      body += "<dt>Quiet hours</dt><dd>\(HTML.escape(Self.schedule(configured)))</dd>"
      let allowed = configured.allowedCallers.isEmpty ? "none" : configured.allowedCallers.joined(separator: ", ")
      body += "<dt>Callers who always ring</dt><dd>\(HTML.escape(allowed))</dd>"
      let repeated = configured.repeatedCallerWindowMs.map { "within \($0 / 60_000) minutes" } ?? "off"
      body += "<dt>A caller who calls again</dt><dd>breaks through \(repeated)</dd>"
      body += "<dt>Time-sensitive calls</dt><dd>\(configured.allowTimeSensitive ? "break through" : "held back")</dd>"
      body += "</dl>"
    } else {
      body += "<p>Not known here.</p>"
    }
    body += "<p>The schedule and the callers are changed in the config file (<code>do_not_disturb:</code>).</p>"
    body += "</section>"
    return PageLayout.document(title: "Quiet hours - CallAlert", section: .quiet, heading: "Quiet hours", body: body)
  }

  /// The mode now, in a sentence.
  static func sentence(_ dnd: StatusReport.DoNotDisturb) -> String {
    let mode: String
    switch dnd.mode {
    case "on": mode = "Do not disturb is <strong>on</strong>: calls are held back"
    case "scheduled":
      mode =
        dnd.active
        ? "Do not disturb follows the schedule, and the quiet hours are <strong>on now</strong>"
        : "Do not disturb follows the schedule; it is <strong>not quiet now</strong>"
    default: mode = "Do not disturb is <strong>off</strong>: every call rings"
    }
    return mode + (dnd.silent ? ". Silent mode is on: the motor only." : ".")
  }

  /// One button per mode that is not the current one, and silent mode's switch.
  static func switches(_ dnd: StatusReport.DoNotDisturb, csrf: String, back: String) -> String {
    var html = "<div class=\"switches\">"
    let choices = [
      ("on", "Turn do not disturb on"), ("off", "Turn do not disturb off"), ("scheduled", "Follow the schedule"),
    ]
    for (mode, label) in choices where mode != dnd.mode {
      html += PageLayout.actionForm(
        PagePaths.doNotDisturb, csrf: csrf, fields: [("mode", mode), ("back", back)], button: label,
        id: "dnd-\(mode)\(back == PagePaths.quiet ? "-q" : "")")
    }
    html += PageLayout.actionForm(
      PagePaths.doNotDisturb, csrf: csrf, fields: [("silent", dnd.silent ? "false" : "true"), ("back", back)],
      button: dnd.silent ? "Silent mode off" : "Silent mode on (motor only)",
      id: "silent\(back == PagePaths.quiet ? "-q" : "")")
    return html + "</div>"
  }

  /// The schedule's windows, in words.
  static func schedule(_ configuration: DoNotDisturbConfiguration) -> String {
    guard !configuration.schedule.isEmpty else { return "none" }
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let windows = configuration.schedule.map { window -> String in
      let time = { (minute: Int) in String(format: "%02ld:%02ld", minute / 60, minute % 60) }
      let when =
        window.weekdays.count == 7
        ? "every day" : window.weekdays.sorted().map { days[($0 - 1) % 7] }.joined(separator: ", ")
      return "\(time(window.startMinute))-\(time(window.endMinute)) \(when)"
    }
    return windows.joined(separator: "; ") + " (\(configuration.timeZone.identifier))"
  }
}
