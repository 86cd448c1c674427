import CallAlertPatterns

/// A pattern file checked on the page: a text area, and under it what `callalert patterns check` says of the
/// text (without `--port`: against the reference board), each diagnostic at its `editor:line:column`. Without
/// JavaScript the form posts and the page comes back with the text and the result; with it, the result follows
/// the typing (the script posts the text to ``PagePaths/patternCheckPart`` a moment after each change).
struct PatternEditor {
  /// What the text area holds.
  let text: String
  let csrf: String
  /// The config's pattern file, when *Save and flash* is offered.
  var flashFile: String? = nil
  /// Why the last *Save and flash* was refused (its errors), shown above the text.
  var refusal: String? = nil

  /// The name diagnostics give the text.
  static let file = "editor"

  /// What a new editor holds: a pattern to start from.
  static let example = "version: 1\npatterns:\n  - name: office\n    cadence: UK\n    volume: 80%\n"

  var html: String {
    let heading = flashFile == nil ? "Check a pattern file" : "Edit the pattern file"
    var html = "<section aria-labelledby=\"editor-heading\"><h2 id=\"editor-heading\">\(heading)</h2>"
    if let flashFile {
      html += "<p>The config's <code>\(HTML.escape(flashFile))</code>, as it is now. <em>Save and flash</em> writes it "
      html += "(once it builds and has every pattern name the config uses) and puts it on every board: a ringing "
      html += "board once it stops, one not connected when it connects.</p>"
    }
    if let refusal {
      html += "<div class=\"refusal\" role=\"alert\"><p>Not saved, nothing flashed:</p><pre>"
      html += HTML.escape(refusal) + "</pre></div>"
    }
    html += "<form method=\"post\" action=\"\(PagePaths.patternCheck)\" id=\"pattern-editor\""
    html += " data-check=\"\(PagePaths.patternCheckPart)\" data-result=\"pattern-result\">"
    html += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
    html += "<label for=\"pattern-text\">Pattern file (YAML, docs/PATTERNS.md)</label>"
    html += "<textarea id=\"pattern-text\" name=\"text\" rows=\"10\" spellcheck=\"false\" autocapitalize=\"off\""
    html += " aria-describedby=\"pattern-result\">\(HTML.escape(text))</textarea>"
    html += "<p><button type=\"submit\" class=\"button\" id=\"pattern-check\">Check</button>"
    if flashFile != nil {
      html += " <button type=\"submit\" class=\"button\" id=\"pattern-flash\" formaction=\"\(PagePaths.patternFlash)\">"
      html += "Save and flash</button>"
    }
    html += "</p></form>"
    html += result
    return html + "</section>"
  }

  /// What `patterns check` says, in a live region (a screen reader hears the result change).
  var result: String {
    let diagnostics = PatternFile.check(text: text, file: Self.file)
    var html = "<div id=\"pattern-result\" role=\"status\" aria-live=\"polite\">"
    if diagnostics.isEmpty {
      html += "<p class=\"fine\">No problems: the file builds for the reference board.</p>"
    } else {
      let errors = diagnostics.filter(\.isError).count
      html += "<p>\(errors) error\(errors == 1 ? "" : "s"), \(diagnostics.count - errors) warning"
      html += "\(diagnostics.count - errors == 1 ? "" : "s"):</p><ul class=\"diagnostics\">"
      for diagnostic in diagnostics {
        html += "<li class=\"\(diagnostic.isError ? "error-line" : "warning-line")\"><code>"
        html += HTML.escape(diagnostic.description) + "</code></li>"
      }
      html += "</ul>"
    }
    return html + "</div>"
  }
}
