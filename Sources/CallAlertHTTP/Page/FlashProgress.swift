/// The boards' flashes on the patterns page: each board's bar (the bytes it acknowledged, of the table's) and
/// where it stands, in a live region. While one goes, the section says so (`data-active`) and the script
/// fetches it again every 300 ms (``PagePaths/flashPart``); a bar moves by steps, never flashes.
struct FlashProgress {
  let states: [PatternFlashing.BoardState]

  var isActive: Bool { states.contains { !$0.ended } }

  var html: String {
    guard !states.isEmpty else { return "<section id=\"flash\" data-active=\"false\" hidden></section>" }
    var html = "<section id=\"flash\" aria-labelledby=\"flash-heading\" data-active=\"\(isActive)\">"
    html += "<h2 id=\"flash-heading\">\(isActive ? "Flashing the boards" : "The last flash")</h2>"
    html += "<div role=\"status\" aria-live=\"polite\"><ul class=\"flash\">"
    for state in states {
      let percent = state.of > 0 ? state.bytes * 100 / state.of : 0
      html += "<li id=\"flash-\(HTML.escape(state.board))\" class=\"\(state.failed ? "error-line" : "")\">"
      html += "<span class=\"board-name\">\(HTML.escape(state.board))</span> "
      html += "<progress max=\"\(max(state.of, 1))\" value=\"\(state.bytes)\""
      html += " aria-label=\"\(HTML.escape(state.board)): \(percent) %\"></progress> "
      html += "\(percent) % (\(state.bytes) of \(state.of) bytes): \(HTML.escape(state.state))</li>"
    }
    return html + "</ul></div></section>"
  }
}
