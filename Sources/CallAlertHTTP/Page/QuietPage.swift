import CallAlertControl
import CallAlertEngine
import CallAlertInputs
import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Quiet hours and do-not-disturb: the mode now, one tap to switch it or silent mode, the schedule and the
/// callers who break through as in force, and an editor for them: the `do_not_disturb:` section as text,
/// checked with the config file's own errors as one types, saved where it stands in for the config file's
/// (docs/PAGE.md). A switch made here is kept over a restart by the daemon's add-on.
struct QuietPage {
  let status: StatusReport
  /// The `do_not_disturb:` settings in force; nil when not known.
  let configured: DoNotDisturbConfiguration?
  let csrf: String
  /// The editor, when the daemon offers one.
  var editor: QuietHoursEditor? = nil
  /// What the editor's text area holds; nil: the settings in force, as text.
  var editorText: String? = nil
  /// What a save said, shown above the editor.
  var note: String? = nil
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
    if let editor {
      body +=
        editor.isInForce()
        ? "<p>As changed on this page, kept in <code>\(HTML.escape(editor.file()))</code>; the config file's "
          + "<code>do_not_disturb:</code> applies no longer.</p>"
          + PageLayout.actionForm(
            PagePaths.quietReset, csrf: csrf, button: "Go back to the config file's quiet hours", id: "quiet-reset")
        : "<p>As in the config file (<code>do_not_disturb:</code>). Changes made below stand in for it.</p>"
    } else {
      body += "<p>The schedule and the callers are changed in the config file (<code>do_not_disturb:</code>).</p>"
    }
    body += "</section>"
    if editor != nil { body += editorSection }
    return PageLayout.document(title: "Quiet hours - CallAlert", section: .quiet, heading: "Quiet hours", body: body)
  }

  /// The text to edit: what was typed, or the settings in force as the config file would write them.
  var text: String {
    editorText ?? configured.map(ConfigurationFile.doNotDisturbYAML) ?? "do_not_disturb:\n  mode: off\n"
  }

  /// The editor: the section as text, and under it its errors, as the config file's would be.
  var editorSection: String {
    var html = "<section aria-labelledby=\"edit-heading\"><h2 id=\"edit-heading\">Change the quiet hours</h2>"
    if let note { html += "<p class=\"note\" role=\"status\">\(HTML.escape(note))</p>" }
    html += "<form method=\"post\" action=\"\(PagePaths.quietSave)\" id=\"quiet-editor\""
    html += " data-check=\"\(PagePaths.quietCheckPart)\" data-result=\"quiet-result\">"
    html += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
    html += "<label for=\"quiet-text\">The <code>do_not_disturb:</code> section, as in the config file "
    html += "(docs/CONFIG.md): quiet hours, callers who always ring, repeated callers</label>"
    html += "<textarea id=\"quiet-text\" name=\"text\" rows=\"12\" spellcheck=\"false\" autocapitalize=\"off\""
    html += " aria-describedby=\"quiet-result\">\(HTML.escape(text))</textarea>"
    html += "<p><button type=\"submit\" class=\"button\" id=\"quiet-check\" formaction=\"\(PagePaths.quietCheck)\">"
    html += "Check</button> <button type=\"submit\" class=\"button\" id=\"quiet-save\">Save and apply</button></p>"
    html += "</form>" + Self.result(text: text, editor: editor)
    return html + "</section>"
  }

  /// What checking the text says, in a live region (a screen reader hears the result change).
  static func result(text: String, editor: QuietHoursEditor?) -> String {
    let errors = editor?.check(text) ?? []
    var html = "<div id=\"quiet-result\" role=\"status\" aria-live=\"polite\">"
    if errors.isEmpty {
      html += "<p class=\"fine\">No problems: the daemon reads it as it would read the config file.</p>"
    } else {
      html += "<p>\(errors.count) error\(errors.count == 1 ? "" : "s"):</p><ul class=\"diagnostics\">"
      for error in errors { html += "<li class=\"error-line\"><code>\(HTML.escape(error.description))</code></li>" }
      html += "</ul>"
    }
    return html + "</div>"
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
    let time = PrintfText.format("%02ld:%02ld", parts.hour ?? 0, parts.minute ?? 0)
    if calendar.isDate(date, inSameDayAs: now) { return time }
    if date.timeIntervalSince(now) < 6 * 86_400 {
      let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
      return "\(days[((parts.weekday ?? 1) - 1) % 7]) \(time)"
    }
    return PrintfText.format("%04ld-%02ld-%02ld ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0) + time
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
      let time = { (minute: Int) in PrintfText.format("%02ld:%02ld", minute / 60, minute % 60) }
      let when =
        window.weekdays.count == 7
        ? "every day" : window.weekdays.sorted().map { days[($0 - 1) % 7] }.joined(separator: ", ")
      return "\(time(window.startMinute))-\(time(window.endMinute)) \(when)"
    }
    return windows.joined(separator: "; ") + " (\(configuration.timeZone.identifier))"
  }
}
