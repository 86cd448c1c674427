import CallAlertTestSupport
import Foundation
import Testing

/// Every `callalert …` command that README.md and docs/*.md show exists: its help's USAGE line names it.
/// A doc that names a subcommand the tool lacks fails here.
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

  /// The USAGE line of `callalert <path> --help`.
  static func usage(_ path: [String]) async throws -> String {
    let help = try await help(path)
    let line = help.split(separator: "\n").first { $0.hasPrefix("USAGE: ") } ?? ""
    return String(line.dropFirst("USAGE: ".count))
  }

  static func hasSubcommands(_ command: String) async throws -> Bool {
    try await help([command]).contains("SUBCOMMANDS:")
  }

  static func help(_ path: [String]) async throws -> String {
    let process = try await DaemonProcess(path + ["--help"])
    let output = await process.allOutput() ?? ""
    _ = await process.exit()
    return output
  }

  /// `--version` alone is answered before the parser is built; the parser still answers it after another
  /// option (`--version --version` is not the lone flag): both print the same line, which names the revision.
  @Test func theVersionLineIsTheParsersOwn() async throws {
    func output(_ arguments: [String]) async throws -> String {
      let process = try await DaemonProcess(arguments)
      let output = await process.allOutput() ?? ""
      _ = await process.exit()
      return output
    }
    let fast = try await output(["--version"])
    #expect(fast.hasPrefix("0.") && fast.contains("(git "), "\(fast)")
    #expect(try await output(["--version", "--version"]) == fast)
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
      // Help for an unknown subcommand is the parent's, with success: the USAGE line tells them apart. A second
      // word counts only where the first has subcommands (`flash rings` is flash and its file).
      let first = try await Self.usage([command[0]])
      #expect(first.hasPrefix("callalert \(command[0])"), "`callalert \(command[0])` is in the docs; usage: \(first)")
      if command.count == 2, try await Self.hasSubcommands(command[0]) {
        let second = try await Self.usage(command)
        #expect(
          second.hasPrefix("callalert \(command.joined(separator: " "))"),
          "`callalert \(command.joined(separator: " "))` is in the docs; usage: \(second)")
      }
    }
  }
}
