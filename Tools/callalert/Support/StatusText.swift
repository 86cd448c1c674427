import CallAlertControl
import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `callalert status` for people: history trouble, do-not-disturb, boards, ringing and missed calls.
enum StatusText {
  /// The lines. Names, ids and serials come from outside (a push, a board): shown safely, never raw.
  static func lines(of status: StatusReport) -> [String] {
    var lines: [String] = []
    if let history = status.history, history.state != .ok || history.lost > 0 {
      lines.append(
        "history: \(history.state.rawValue) (\(DisplayText.safe(history.error ?? ""))), \(history.pending) pending, "
          + "\(history.lost) lost")
    }
    lines.append(doNotDisturbLine(status.doNotDisturb))
    func shown(_ value: String) -> String { DisplayText.excerpt(value) }
    for board in status.boards {
      let state = board.link ?? (board.connected ? "connected" : "not connected")
      let serial = board.serial.map { ", serial \(shown($0))" } ?? board.device.map { ", \(shown($0))" } ?? ""
      let playing = board.playingCall.map { ", ringing \(shown($0))" } ?? ""
      let port = board.connected ? "" : board.port.map { " (\(shown($0)))" } ?? ""
      lines.append("board \(shown(board.name)): \(state)\(port)\(serial)\(playing)")
      if let problem = board.problem {
        lines.append("  not connected: \(DisplayText.safe(problem))")
        lines.append("  fix: give the board's port (`callalert ports` lists them); `callalert doctor` checks it")
      }
    }
    for source in status.sources ?? [] { lines.append(SourceLine.text(source)) }
    lines.append(status.calls.isEmpty ? "no call ringing" : "ringing:")
    for call in status.calls {
      // A withheld caller or a call no board plays yet leaves its part out, not an empty gap (": … on ").
      let who = [call.name, call.caller].compactMap { $0 }.filter { !$0.isEmpty }.map(shown).joined(separator: " ")
      let boards = call.playingOn.map(shown).joined(separator: ", ")
      lines.append(
        "  \(shown(call.id))\(who.isEmpty ? " (withheld)" : " \(who)"): \(call.remainingMs / 1000) s left"
          + (boards.isEmpty ? ", waiting for a board" : " on \(boards)")
          + (call.source.map { ", from \(shown($0))" } ?? ""))
    }
    if !status.missed.isEmpty { lines.append("missed, not acknowledged: \(status.missed.count)") }
    return lines
  }

  /// Do-not-disturb and silent mode as they are now, and what a restart goes back to when switched.
  static func doNotDisturbLine(_ dnd: StatusReport.DoNotDisturb, timeZone: TimeZone = .current) -> String {
    let switched = dnd.override != nil && dnd.configured.map { $0 != dnd.mode } == true
    // A switch made for a while says when it ends, on this machine's clock: "until 07:00", or with the date
    // when that is not today.
    let until = dnd.until.flatMap(Timestamp.date(text:)).map { " until \(localTime($0, timeZone: timeZone))" } ?? ""
    return "do-not-disturb: \(dnd.mode)\(until)\(dnd.active ? " (active now)" : "")"
      + (switched ? " (switched; the config says \(dnd.configured ?? ""))" : "") + (dnd.silent ? ", silent" : "")
  }

  /// "07:00" when `date` is today in `timeZone`, else "2026-11-29 07:00".
  static func localTime(_ date: Date, timeZone: TimeZone, now: Date = Date()) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    let time = PrintfText.format("%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    guard !calendar.isDate(date, inSameDayAs: now) else { return time }
    return PrintfText.format("%04d-%02d-%02d ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0) + time
  }
}
