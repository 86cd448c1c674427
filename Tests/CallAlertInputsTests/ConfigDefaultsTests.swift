import CallAlertEngine
import CallAlertInputs
import CallAlertText
import CallAlertValues
import Foundation
import Testing

@Suite struct ConfigDefaultsTests {
  /// An empty file, a file of comments, a null document and sections without values are all the defaults.
  @Test(arguments: [
    "", "\n\n", "# nothing here\n# at all\n", "~\n", "---\n",
    "cap:\ntombstone:\nboards:\npatterns:\ndo_not_disturb:\nregion:\nmissed_indicator:\n"
      + "socket:\nhistory:\nevents:\npush_rules:\n",
    "do_not_disturb: ~\nsocket: null\n",
  ])
  func emptyInputsAreTheDefaults(text: String) throws {
    #expect(try parseConfig(text) == testDefaults)
  }

  @Test func theDefaultsAreTheEngineDefaultsWithOneAutomaticBoard() {
    #expect(testDefaults.engine == EngineConfiguration(boards: [AlertBoard(name: "board", port: "auto")]))
    #expect(testDefaults.socketMode == 0o600)
    #expect(testDefaults.eventsFormat == .json)
    #expect(testDefaults.patternsFile == nil)
    #expect(testDefaults.pushRules.isEmpty)
  }

  struct PathCase: Sendable, CustomTestStringConvertible {
    var environment: [String: String]
    var socket: String
    var history: String
    var config: String
    var testDescription: String { environment.keys.sorted().joined(separator: "+") }
  }

  @Test(arguments: [
    PathCase(
      environment: [
        "HOME": "/home/bob", "XDG_RUNTIME_DIR": "/run/user/501", "XDG_STATE_HOME": "/var/state/bob",
        "XDG_CONFIG_HOME": "/etc/bob",
      ],
      socket: "/run/user/501/callalert.sock", history: "/var/state/bob/callalert/history.sqlite",
      config: "/etc/bob/callalert/config.yaml"),
    PathCase(
      environment: ["HOME": "/home/bob"], socket: "/tmp/callalert-501/callalert.sock",
      history: "/home/bob/.local/state/callalert/history.sqlite", config: "/home/bob/.config/callalert/config.yaml"),
    // The XDG rule: relative values are ignored; trailing slashes are dropped.
    PathCase(
      environment: ["HOME": "/home/bob/", "XDG_RUNTIME_DIR": "run", "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": "cfg"],
      socket: "/tmp/callalert-501/callalert.sock", history: "/home/bob/.local/state/callalert/history.sqlite",
      config: "/home/bob/.config/callalert/config.yaml"),
    PathCase(
      environment: ["HOME": "/home/bob", "XDG_RUNTIME_DIR": "/run/user/501/"],
      socket: "/run/user/501/callalert.sock", history: "/home/bob/.local/state/callalert/history.sqlite",
      config: "/home/bob/.config/callalert/config.yaml"),
  ])
  func defaultPathsFollowTheEnvironment(_ test: PathCase) {
    #expect(DaemonConfiguration.defaultSocketPath(environment: test.environment, userID: 501) == test.socket)
    #expect(DaemonConfiguration.defaultHistoryPath(environment: test.environment) == test.history)
    #expect(DaemonConfiguration.defaultConfigPath(environment: test.environment) == test.config)
    let defaults = DaemonConfiguration.defaults(environment: test.environment, userID: 501)
    #expect(defaults.socketPath == test.socket)
    #expect(defaults.historyPath == test.history)
  }

  @Test(arguments: [
    ("patterns.yaml", "/etc/callalert/patterns.yaml"),
    ("sub/patterns.yaml", "/etc/callalert/sub/patterns.yaml"),
    ("/opt/p.yaml", "/opt/p.yaml"),
    ("~/p.yaml", "/home/alice/p.yaml"),
    ("~", "/home/alice"),
  ])
  func pathsAreRelativeToTheConfigFile(written: String, resolved: String) throws {
    let config = try parseConfig(
      "patterns: {file: \"\(written)\"}\nhistory: {path: \"\(written)\"}\nsocket: {path: \"\(written)\"}")
    #expect(config.patternsFile == resolved)
    #expect(config.historyPath == resolved)
    #expect(config.socketPath == resolved)
  }

  @Test func loadReadsAFileAndAnchorsItsRelativePaths() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("config.yaml")
    try "cap: 20s\npatterns:\n  file: tones.yaml\n".write(to: file, atomically: true, encoding: .utf8)
    let config = try ConfigurationFile.load(path: file.path, environment: testEnvironment, userID: 1000)
    #expect(config.engine.capMs == 20_000)
    #expect(config.patternsFile == folder.appendingPathComponent("tones.yaml").path)
  }

  @Test func loadReportsAMissingFileAtItsPath() {
    #expect(
      throws: InputErrors([
        InputError(location: "/nonexistent/callalert.yaml", message: "the config file does not exist")
      ])
    ) {
      try ConfigurationFile.load(path: "/nonexistent/callalert.yaml", environment: testEnvironment, userID: 1000)
    }
  }

  @Test func loadReportsAFileThatIsNotUTF8() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-\(UUID().uuidString).yaml")
    try Data([0x63, 0x61, 0x70, 0x3A, 0x20, 0xFF, 0xFE, 0x0A]).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    #expect(throws: InputErrors([InputError(location: file.path, message: "the config file is not UTF-8 text")])) {
      try ConfigurationFile.load(path: file.path, environment: testEnvironment, userID: 1000)
    }
  }
}
