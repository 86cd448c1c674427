import CallAlertControl
import CallAlertEngine
import CallAlertInputs
import Foundation

/// Quiet hours and do-not-disturb: the mode now, one tap to switch it or silent mode, and the schedule and the
/// callers who break through as the config file has them. A switch made here is kept over a restart by the
/// daemon's add-on (docs/PAGE.md); the schedule itself is changed in the config file.
struct QuietPage {
  let status: StatusReport
  /// The config's `do_not_disturb:` as the daemon started with it; nil when not known.
  let configured: DoNotDisturbConfiguration?
  let csrf: String
  /// The zone the times are shown in: the quiet hours' (the config's `time_zone`), else the daemon's.
  var timeZone: TimeZone { configured?.timeZone ?? .current }

  var document: String {
    var body = "<section aria-labelledby=\"now-heading\"><h2 id=\"now-heading\">Now</h2>"
    body += "<p class=\"dnd\">\(Self.sentence(status.doNotDisturb, timeZone: timeZone))</p>"
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

  /// The mode now, in a sentence; a switch made for a while says when it ends, in `timeZone`.
  static func sentence(_ dnd: StatusReport.DoNotDisturb, timeZone: TimeZone, now: Date = Date()) -> String {
    let until = dnd.until.flatMap(Timestamp.date(text:)).map { " until \(clockTime($0, timeZone, now: now))" } ?? ""
    let mode: String
    switch dnd.mode {
    case "on": mode = "Do not disturb is <strong>on</strong>\(until): calls are held back"
    case "scheduled":
      mode =
        dnd.active
        ? "Do not disturb follows the schedule\(until), and the quiet hours are <strong>on now</strong>"
        : "Do not disturb follows the schedule\(until); it is <strong>not quiet now</strong>"
    default: mode = "Do not disturb is <strong>off</strong>\(until): every call rings"
    }
    let after = until.isEmpty ? "" : ". Then it is as configured (\(HTML.escape(dnd.configured ?? "off")))"
    return mode + after + (dnd.silent ? ". Silent mode is on: the motor only." : ".")
  }

  /// "07:00" today, "Sat 07:00" within a week, else "2026-12-24 07:00", in `timeZone`.
  static func clockTime(_ date: Date, _ timeZone: TimeZone, now: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
    let time = String(format: "%02ld:%02ld", parts.hour ?? 0, parts.minute ?? 0)
    if calendar.isDate(date, inSameDayAs: now) { return time }
    if date.timeIntervalSince(now) < 6 * 86_400 {
      let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
      return "\(days[((parts.weekday ?? 1) - 1) % 7]) \(time)"
    }
    return String(format: "%04ld-%02ld-%02ld ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0) + time
  }

  /// One button per mode that is not the current one, and silent mode's switch.
  static func switches(_ dnd: StatusReport.DoNotDisturb, csrf: String, back: String) -> String {
    var html = "<div class=\"switches\">"
    let choices = [
      ("on", "Turn do not disturb on"), ("off", "Turn do not disturb off"), ("scheduled", "Follow the schedule"),
    ]
    let suffix = back == PagePaths.quiet ? "-q" : ""
    // A switch made for a while shows every mode, its own too: a tap makes it for good.
    for (mode, label) in choices where mode != dnd.mode || dnd.until != nil {
      html += PageLayout.actionForm(
        PagePaths.doNotDisturb, csrf: csrf, fields: [("mode", mode), ("back", back)], button: label,
        id: "dnd-\(mode)\(suffix)")
    }
    html += PageLayout.actionForm(
      PagePaths.doNotDisturb, csrf: csrf, fields: [("mode", "on"), ("for", "1h"), ("back", back)],
      button: "On for an hour", id: "dnd-hour\(suffix)")
    html += "<form method=\"post\" action=\"\(PagePaths.doNotDisturb)\" class=\"until\">"
    html += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
    html += "<input type=\"hidden\" name=\"mode\" value=\"on\">"
    html += "<input type=\"hidden\" name=\"back\" value=\"\(HTML.escape(back))\">"
    html += "<label for=\"dnd-until\(suffix)\">On until</label> "
    html += "<input type=\"time\" id=\"dnd-until\(suffix)\" name=\"until\" required> "
    html += "<button type=\"submit\" id=\"dnd-on-until\(suffix)\" class=\"button\">Turn on until then</button></form>"
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
