import CallAlertControl

/// One board as the daemon knows it now, drawn for people: its LED, buzzer and motor, and its link (connected,
/// or why not). What the daemon knows is what it asked the board to do: a board that plays a call sounds its
/// buzzer (not for a silent call, which rings with the motor only, nor on a `vibrate_only` board), shakes its motor and lights its LED; with
/// missed calls waiting it blinks the LED slowly (the missed-call indicator). Nothing here flashes: the
/// drawing changes when the state does, and the motor's shake is a slow movement that `prefers-reduced-motion`
/// turns off. A USB light (docs/LIGHTS.md) is drawn as its lamp, with a Kuando's ringtone, and no motor.
struct BoardDrawing {
  let board: StatusReport.Board
  /// The call it plays, if any.
  let call: StatusReport.Call?
  /// Whether missed calls wait to be acknowledged.
  let missedWaiting: Bool
  /// Whether the config makes it vibrate only (a bed shaker).
  var vibrateOnly = false
  /// The light's kind when it is a USB light (`kuando`, `blink1`, ...); nil for a CallAlert board.
  var light: String? = nil

  var playing: Bool { call != nil || board.playingCall != nil }
  /// Whether it sounds: a board's buzzer, a Kuando's ringtone (other lights have no sound).
  var buzzer: Bool { playing && call?.silent != true && !vibrateOnly && (light == nil || light == "kuando") }
  var led: String { playing ? "lit" : missedWaiting && board.connected ? "missed-call blink" : "off" }

  /// What changes the drawing, for the section's `data-state`.
  var state: String { "\(board.name),\(board.connected),\(board.link ?? ""),\(board.playingCall ?? ""),\(led)" }

  var html: String {
    let name = HTML.escape(board.name)
    var html = "<li class=\"board\(playing ? " playing" : "")\(board.connected ? "" : " offline")\">"
    html += "<h3>\(name)</h3>"
    html += "<div class=\"parts\" aria-hidden=\"true\">"
    html += "<span class=\"led led-\(playing ? "on" : missedWaiting && board.connected ? "missed" : "off")\"></span>"
    html += "<span class=\"buzzer\(buzzer ? " on" : "")\">\u{266A}</span>"
    if light == nil { html += "<span class=\"motor\(playing ? " on" : "")\">\u{2248}</span>" }
    html += "</div><dl>"
    if let light { html += "<dt>Kind</dt><dd>\(HTML.escape(light)) light</dd>" }
    html += "<dt>Link</dt><dd>\(HTML.escape(link))</dd>"
    html += "<dt>\(light == nil ? "LED" : "Light")</dt><dd>\(led)</dd>"
    if light == nil || light == "kuando" {
      let sound = light == nil ? "Buzzer" : "Ringtone"
      html += "<dt>\(sound)</dt><dd>\(buzzer ? "sounding" : "quiet")</dd>"
    }
    if light == nil { html += "<dt>Motor</dt><dd>\(playing ? "shaking" : "still")</dd>" }
    if let call { html += "<dt>Plays</dt><dd>\(HTML.escape(LivePage.caller(call)))</dd>" }
    if let serial = board.serial { html += "<dt>Serial</dt><dd>\(HTML.escape(serial))</dd>" }
    if let firmware = board.firmware { html += "<dt>Firmware</dt><dd>\(HTML.escape(firmware))</dd>" }
    if let device = board.device { html += "<dt>Device</dt><dd>\(HTML.escape(device))</dd>" }
    html += "</dl></li>"
    return html
  }

  /// Connected, or why not, in words.
  var link: String {
    if board.connected { return board.link == "unresponsive" ? "connected, not answering" : "connected" }
    let state = board.link ?? "disconnected"
    let place = board.port.map { " (\($0))" } ?? ""
    if let problem = board.problem { return "\(state)\(place): \(problem)" }
    return "\(state)\(place)"
  }
}
