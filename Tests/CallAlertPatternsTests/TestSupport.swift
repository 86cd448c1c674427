import CallAlertPatterns
import CallAlertProtocol
import CallAlertTestSupport
import Foundation
import Testing

/// Parses `text`, recording the diagnostics as a test failure when it does not parse.
func parsed(_ text: String, file: String = "test.yaml") throws -> PatternFile {
  do {
    return try PatternFile.parse(text: text, file: file)
  } catch {
    Issue.record("unexpected diagnostics:\n\(error)")
    throw error
  }
}

/// The diagnostics of a file that must not parse.
func parseErrors(_ text: String, file: String = "test.yaml") -> [Diagnostic] {
  do {
    let file = try PatternFile.parse(text: text, file: file)
    Issue.record("expected errors, got a file with \(file.patterns.count) patterns")
    return []
  } catch {
    return error.diagnostics
  }
}

/// Diagnostics as the text a user sees, one per element.
func descriptions(_ diagnostics: [Diagnostic]) -> [String] { diagnostics.map(\.description) }

/// docs/PATTERNS.md.
func documentation() throws -> String {
  try String(contentsOf: repositoryRoot.appendingPathComponent("docs/PATTERNS.md"), encoding: .utf8)
}

/// The fenced block that follows `<!-- example: NAME -->` in docs/PATTERNS.md, with its final newline.
func documentedExample(_ name: String) throws -> String {
  let markdown = try documentation()
  let marker = "<!-- example: \(name) -->"
  let afterMarker = try #require(markdown.range(of: marker)).upperBound
  let fence = try #require(markdown.range(of: "```", range: afterMarker..<markdown.endIndex))
  let start = try #require(markdown.range(of: "\n", range: fence.upperBound..<markdown.endIndex)).upperBound
  let end = try #require(markdown.range(of: "\n```", range: start..<markdown.endIndex))
  return String(markdown[start..<end.lowerBound]) + "\n"
}
