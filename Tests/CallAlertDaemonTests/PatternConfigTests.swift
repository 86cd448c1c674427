import CallAlertDaemon
import Foundation
import Testing

/// `callalert run` and `reload` check the pattern names of the config against its pattern file and the
/// built-ins, and refuse a pattern file over 1 MiB before reading it.
@Suite struct PatternConfigTests {
  /// A folder with `config.yaml` and `patterns.yaml`.
  static func folder(config: String, patterns: String?) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-patterns-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try config.write(to: directory.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
    if let patterns {
      try patterns.write(to: directory.appendingPathComponent("patterns.yaml"), atomically: true, encoding: .utf8)
    }
    return directory.path
  }

  static func loadError(_ directory: String) -> String? {
    do {
      _ = try Daemon.configuration(for: DaemonOptions(configPath: directory + "/config.yaml"))
      return nil
    } catch {
      return error.description
    }
  }

  static let patterns = "version: 1\npatterns:\n  - { name: family, cadence: DE }\n"

  @Test func aNameFromThePatternFileOrTheBuiltInsLoads() throws {
    let directory = try Self.folder(
      config:
        "patterns:\n  file: patterns.yaml\n  default: family\n  rules:\n    - { levels: [critical], pattern: US }\n",
      patterns: Self.patterns)
    #expect(Self.loadError(directory) == nil)
  }

  @Test func aMistypedNameIsRefusedWithItsPlaceAndASuggestion() throws {
    let directory = try Self.folder(
      config: "patterns:\n  file: patterns.yaml\n  rules:\n    - { levels: [critical], pattern: famly }\n",
      patterns: Self.patterns)
    let error = try #require(Self.loadError(directory))
    #expect(
      error.hasPrefix(
        "\(directory)/config.yaml:4:38: patterns.rules[0].pattern: unknown pattern 'famly'; did you mean 'family'?"))
  }

  @Test func withoutAPatternFileOnlyBuiltInsAreNames() throws {
    let directory = try Self.folder(config: "patterns:\n  default: uk-ring\n", patterns: nil)
    let error = try #require(Self.loadError(directory))
    #expect(error.contains("config.yaml:2:12: patterns.default: unknown pattern 'uk-ring'"))
  }

  @Test func aPatternFileOverOneMebibyteIsRefusedUnread() throws {
    let directory = try Self.folder(
      config: "patterns:\n  file: patterns.yaml\n",
      patterns: Self.patterns + String(repeating: "#", count: 1 << 20))
    let error = try #require(Self.loadError(directory))
    #expect(error.contains("patterns.yaml:1:1: error: the file is 1048631 bytes, above the 1 MiB"))
  }

  @Test func aMissingPatternFileIsNamed() throws {
    let directory = try Self.folder(config: "patterns:\n  file: nowhere.yaml\n", patterns: nil)
    #expect(Self.loadError(directory) == "\(directory)/nowhere.yaml: the pattern file (patterns.file) does not exist")
  }
}
