import CallAlertInputs
import Foundation
import Testing

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// A document under docs/.
func documentText(_ name: String) throws -> String {
  try String(contentsOf: repositoryRoot.appendingPathComponent("docs/\(name)"), encoding: .utf8)
}

/// The fenced code blocks of a Markdown text in `language`, in order, with the heading they sit under.
func codeBlocks(_ markdown: String, language: String) -> [(text: String, heading: String)] {
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

/// An environment with known paths, so defaults do not depend on the machine.
let testEnvironment = [
  "HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/home/alice/.state",
]

/// Parses config text as `/etc/callalert/config.yaml` in ``testEnvironment``.
func parseConfig(_ text: String) throws(InputErrors) -> DaemonConfiguration {
  try ConfigurationFile.parse(
    text: text, file: "/etc/callalert/config.yaml", environment: testEnvironment, userID: 1000)
}

/// The errors of config text that must not parse; records an issue when it does.
func configErrors(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [InputError] {
  do {
    _ = try parseConfig(text)
    Issue.record("expected errors, the config parsed", sourceLocation: sourceLocation)
    return []
  } catch {
    return error.errors
  }
}

/// The defaults in ``testEnvironment``.
let testDefaults = DaemonConfiguration.defaults(environment: testEnvironment, userID: 1000)

/// A date from an ISO 8601 text, for readable expectations; a text that does not parse is a mistake in a test.
func date(_ text: String) -> Date {
  let style = Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains("."))
  guard let date = try? style.parse(text) else { preconditionFailure("'\(text)' is not ISO 8601") }
  return date
}
