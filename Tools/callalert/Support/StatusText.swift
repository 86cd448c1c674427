import CallAlertControl
import CallAlertInputs

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
    let dnd = status.doNotDisturb
    lines.append(
      "do-not-disturb: \(dnd.override ?? dnd.mode)\(dnd.active ? " (active now)" : "")\(dnd.silent ? ", silent" : "")")
    func shown(_ value: String) -> String { DisplayText.excerpt(value) }
    for board in status.boards {
      let state = board.link ?? (board.connected ? "connected" : "not connected")
      let serial = board.serial.map { ", serial \(shown($0))" } ?? ""
      let playing = board.playingCall.map { ", ringing \(shown($0))" } ?? ""
      lines.append("board \(shown(board.name)): \(state)\(serial)\(playing)")
    }
    for source in status.sources ?? [] { lines.append(SourceLine.text(source)) }
    lines.append(status.calls.isEmpty ? "no call ringing" : "ringing:")
    for call in status.calls {
      let boards = call.playingOn.map(shown).joined(separator: ", ")
      lines.append(
        "  \(shown(call.id)) \(shown(call.name ?? "")) \(shown(call.caller ?? "")): "
          + "\(call.remainingMs / 1000) s left on \(boards)")
    }
    if !status.missed.isEmpty { lines.append("missed, not acknowledged: \(status.missed.count)") }
    return lines
  }
}
