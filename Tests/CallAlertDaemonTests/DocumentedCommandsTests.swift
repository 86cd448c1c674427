import Foundation
import Testing

/// Every `callalert …` command that README.md and docs/*.md show exists: its subcommand path answers
/// `--help` with success. A doc that names a subcommand the tool lacks fails here.
@Suite("Documented commands", .timeLimit(.minutes(1)))
struct DocumentedCommandsTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The code in a Markdown text: fenced blocks and `spans`.
  static func code(_ markdown: String) -> [Substring] {
    var pieces: [Substring] = []
    var fenced = false
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        fenced.toggle()
        continue
      }
      if fenced {
        pieces.append(line)
      } else {
        pieces += line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
          $0.offset % 2 == 1
        }
        .map(\.element)
      }
    }
    return pieces
  }

  /// The subcommand words after each `callalert` in `code`: lowercase words, up to the first option,
  /// argument or shell operator (`callalert patterns check rings.yaml` -> `patterns check`).
  static func commands(in code: Substring) -> [[String]] {
    let words = code.split(whereSeparator: \.isWhitespace).map(String.init)
    var found: [[String]] = []
    for (index, word) in words.enumerated() where word == "callalert" || word.hasSuffix("/callalert") {
      let path = words[(index + 1)...].prefix { $0.allSatisfy { $0.isLowercase || $0 == "-" } && !$0.hasPrefix("-") }
      if !path.isEmpty { found.append(Array(path.prefix(2))) }
    }
    return found
  }

  @Test func everyCommandTheDocsShowExists() async throws {
    let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
      .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
    var commands: Set<[String]> = []
    for file in ["README.md"] + docs {
      let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
      for piece in Self.code(text) { commands.formUnion(Self.commands(in: piece)) }
    }
    #expect(commands.contains(["run"]) && commands.contains(["patterns", "check"]), "\(commands)")
    for command in commands.sorted(by: { $0.joined(separator: " ") < $1.joined(separator: " ") }) {
      let process = try DaemonProcess(command + ["--help"])
      _ = await process.allOutput()
      let exit = await process.exit()
      #expect(exit?.1 == 0, "`callalert \(command.joined(separator: " "))` is in the docs: \(process.standardError)")
    }
  }
}
