import CallAlertPatterns
// Full Foundation, not FoundationEssentials: the file errors' localizedDescription.
import Foundation

/// The patterns drawn as timelines (the SVG renderer `callalert patterns render --svg` uses): the buzzer's
/// pitch, the motor and the LED against time. Those of the config's pattern file first, read when the page is
/// asked (a file that does not load shows its `patterns check` diagnostics, `file:line:column`), then the
/// built-in ones.
struct PatternsPage {
  /// The config's `patterns.file`, if any.
  let file: String?
  /// The boards a test ring may be played on.
  var boards: [String] = []
  var csrf = ""
  /// What the pattern editor holds.
  var editorText = PatternEditor.example
  /// Where *Save and flash* goes; nil: the editor only checks.
  var flashing: PatternFlashing? = nil
  /// What a flash that was refused said, above the editor.
  var flashRefusal: String? = nil

  var document: String {
    var body = ""
    if !boards.isEmpty { body += testRing }
    if let flashing { body += FlashProgress(states: flashing.progress()).html }
    body += PatternEditor(text: editorText, csrf: csrf, flashFile: flashing?.file, refusal: flashRefusal).html
    if let file {
      body += "<section aria-labelledby=\"file-heading\"><h2 id=\"file-heading\">From \(HTML.escape(file))</h2>"
      body += Self.fromFile(file)
      body += "</section>"
    }
    body += "<section aria-labelledby=\"builtin-heading\"><h2 id=\"builtin-heading\">Built in</h2>"
    body += "<p>Named in the config's rules and in pushes without a pattern file.</p>"
    body += BuiltInPatterns.all.map(Self.figure).joined()
    body += "</section>"
    return PageLayout.document(title: "Patterns - CallAlert", section: .patterns, heading: "Patterns", body: body)
  }

  /// The test ring's form: a board and a pattern, rung as a call named "Test ring" (it may be stopped on the
  /// live view, where the browser goes).
  var testRing: String {
    var names = BuiltInPatterns.names
    if let file, let loaded = try? PatternFile.parse(text: Self.text(file) ?? "", file: file) {
      names = loaded.patterns.map(\.name) + names
    }
    var html = "<section aria-labelledby=\"test-heading\"><h2 id=\"test-heading\">Test ring</h2>"
    html += "<form method=\"post\" action=\"\(PagePaths.testRing)\">"
    html += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
    html += "<label for=\"test-board\">Board</label><select id=\"test-board\" name=\"board\">"
    html += boards.map { "<option>\(HTML.escape($0))</option>" }.joined() + "</select>"
    html += "<label for=\"test-pattern\">Pattern</label><select id=\"test-pattern\" name=\"pattern\">"
    html += names.map { "<option>\(HTML.escape($0))</option>" }.joined() + "</select>"
    html += "<p><button type=\"submit\" class=\"button\" id=\"test-ring\">Ring it</button></p></form>"
    html += "<p>It rings as a call named Test ring, in the history too; stop it on the live view.</p></section>"
    return html
  }

  static func text(_ path: String) -> String? {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)), data.count <= PatternFile.maximumBytes
    else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  static func fromFile(_ path: String) -> String {
    let text: String
    do {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      guard data.count <= PatternFile.maximumBytes else { return "<p class=\"problem\">The file is too large.</p>" }
      text = String(decoding: data, as: UTF8.self)
    } catch {
      return "<p class=\"problem\">It cannot be read: \(HTML.escape("\(error.localizedDescription)"))</p>"
    }
    do {
      let file = try PatternFile.parse(text: text, file: path)
      guard !file.patterns.isEmpty else { return "<p>It defines no pattern.</p>" }
      return file.patterns.map(figure).joined()
    } catch {
      let lines = error.diagnostics.map { "<li><code>\(HTML.escape("\($0)"))</code></li>" }.joined()
      return "<div class=\"problem\"><p>It does not load:</p><ul>\(lines)</ul></div>"
    }
  }

  /// One pattern: its name and slot, and its drawing, with `role="img"` and a label (its `<title>` says
  /// where it comes from), so a screen reader names it.
  static func figure(_ definition: PatternDefinition) -> String {
    figure(definition, index: definition.slot + 1_000 * (definition.location.file.hasPrefix("builtin:") ? 1 : 0))
  }

  /// One pattern, its drawing and its preview; `index` tells its preview's ids from the others'.
  static func figure(_ definition: PatternDefinition, index: Int) -> String {
    let label = HTML.escape("Timeline of \(definition.name): buzzer, motor and LED against time")
    let svg = PatternRenderer.svg(definition, width: 720)
      .replacing("<svg xmlns=", with: "<svg role=\"img\" aria-label=\"\(label)\" xmlns=")
    return "<figure class=\"pattern\"><figcaption>\(HTML.escape(definition.name)), slot \(definition.slot)"
      + "</figcaption>\(svg)\(PatternPreview(definition: definition, index: index).html)</figure>"
  }
}
