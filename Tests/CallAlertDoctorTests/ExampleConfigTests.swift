import CallAlertEngine
import CallAlertInputs
import CallAlertLights
import CallAlertValues
import Foundation
import Testing

/// packaging/config.example.yaml: as shipped it means the defaults; with every setting uncommented it is a
/// valid config, so no documented key is misspelt or out of date.
@Suite("Example config")
struct ExampleConfigTests {
  static let environment = ["HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000"]

  static func text() throws -> String { try UdevRuleTests.text("packaging/config.example.yaml") }

  /// Settings are commented out with a bare `#` (`#cap: 30s`, `#  - name: desk`); explanations are `# text`
  /// (one space, then a word).
  static func uncommented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      let explanation = line == "#" || (line.hasPrefix("# ") && !line.hasPrefix("#  "))
      return line.hasPrefix("#") && !explanation ? String(line.dropFirst()) : String(line)
    }.joined(separator: "\n")
  }

  @Test func asShippedItMeansTheDefaults() throws {
    let parsed = try ConfigurationFile.parse(
      text: try Self.text(), file: "/etc/callalert/config.yaml", environment: Self.environment, userID: 1000)
    #expect(parsed == DaemonConfiguration.defaults(environment: Self.environment, userID: 1000))
  }

  @Test func everySettingUncommentedIsValid() throws {
    let text = Self.uncommented(try Self.text())
    #expect(text != (try Self.text()))
    let parsed = try ConfigurationFile.parse(
      text: text, file: "/etc/callalert/config.yaml", environment: Self.environment, userID: 1000)
    #expect(parsed.engine.boards.map(\.name) == ["desk", "bed", "lamp"])
    #expect(parsed.engine.boards[2].kind == .light(.kuando))
    #expect(parsed.patternsFile == "/etc/callalert/patterns.yaml")
    #expect(parsed.pushRules.count == 2)
  }

  /// Every top-level section docs/CONFIG.md's full example has is in the example file.
  @Test func everyDocumentedSectionIsThere() throws {
    let documented = try UdevRuleTests.text("docs/CONFIG.md")
    let example = try Self.text()
    let block = try #require(
      documented.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
    let sections = block.split(separator: "\n").compactMap { line -> String? in
      guard let first = line.first, first.isLetter, let colon = line.firstIndex(of: ":") else { return nil }
      return String(line[..<colon])
    }
    #expect(sections.count >= 10)
    for section in sections { #expect(example.contains("#\(section):"), "\(section) is missing") }
  }
}
