import CallAlertControl
import CallAlertText

/// A phone-system source in `callalert status`: `source fritzbox (fritzbox 192.168.178.1:1012): connected`, or
/// failing with its reason and the next attempt.
enum SourceLine {
  static func text(_ source: StatusReport.Source) -> String {
    // Reasons quote what a phone system said: shown safely, never raw to the terminal.
    func shown(_ value: String) -> String { DisplayText.excerpt(value, limit: 160) }
    var line = "source \(shown(source.name)) (\(shown(source.kind)) \(shown(source.address))): \(shown(source.state))"
    if let reason = source.reason { line += ", \(shown(reason))" }
    if let next = source.nextAttemptMs {
      line += "; next attempt in \(next < 1_000 ? "\(next) ms" : "\((next + 500) / 1_000) s")"
    }
    return line
  }
}
