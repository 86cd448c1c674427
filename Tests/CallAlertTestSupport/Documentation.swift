import Foundation

// What the tests that check the documentation share: the repository's files, the fenced blocks of a Markdown
// text, and readable dates for expectations.

/// The repository's root, found from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// A document under docs/.
public func documentText(_ name: String) throws -> String {
  try String(contentsOf: repositoryRoot.appendingPathComponent("docs/\(name)"), encoding: .utf8)
}

/// The fenced code blocks of a Markdown text in `language`, in order, with the heading they sit under.
public func codeBlocks(_ markdown: String, language: String) -> [(text: String, heading: String)] {
  var blocks: [(String, String)] = []
  var heading = ""
  var current: [Substring]? = nil
  for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
    if current == nil, line.hasPrefix("#") { heading = line.drop { $0 == "#" || $0 == " " }.description }
    if current != nil {
      if line.hasPrefix("```") {
        blocks.append((current!.joined(separator: "\n"), heading))
        current = nil
      } else {
        current!.append(line)
      }
    } else if line == "```\(language)" {
      current = []
    }
  }
  return blocks
}

/// A date from an ISO 8601 text, for readable expectations; a text that does not parse is a mistake in a test.
public func date(_ text: String) -> Date {
  let style = Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains("."))
  guard let date = try? style.parse(text) else { preconditionFailure("'\(text)' is not ISO 8601") }
  return date
}
