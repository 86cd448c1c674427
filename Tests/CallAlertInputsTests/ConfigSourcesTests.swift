import CallAlertInputs
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// The `sources:` section (docs/SOURCES.md): its examples parse to what they say, and every mistake is an
/// error at its place.
@Suite struct ConfigSourcesTests {
  /// A folder with a private AMI secret file (and one others may read), where configs are parsed.
  struct Folder {
    let path: String
    init() throws {
      path =
        FileManager.default.temporaryDirectory.appendingPathComponent("sources-\(UUID().uuidString.prefix(8))")
        .path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      try "a-long-random-secret\n".write(toFile: path + "/ami.secret", atomically: false, encoding: .utf8)
      chmod(path + "/ami.secret", 0o600)
      try "a-long-random-secret\n".write(toFile: path + "/open.secret", atomically: false, encoding: .utf8)
      chmod(path + "/open.secret", 0o644)
    }

    func parse(_ text: String) throws(InputErrors) -> DaemonConfiguration {
      try ConfigurationFile.parse(text: text, file: path + "/config.yaml", environment: testEnvironment, userID: 1000)
    }

    func errors(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
      do {
        _ = try parse(text)
        Issue.record("expected errors, the config parsed", sourceLocation: sourceLocation)
        return []
      } catch {
        return error.errors.map { "\($0)".replacingOccurrences(of: path + "/", with: "") }
      }
    }
  }

  @Test func theDocumentedExamplesParse() throws {
    let folder = try Folder()
    let blocks = codeBlocks(try documentText("SOURCES.md"), language: "yaml")
    #expect(blocks.count == 3)
    let configs = try blocks.map { try folder.parse($0.text) }
    #expect(configs[0].sources == [BridgeSource(name: "fritzbox", kind: .fritzbox, host: "fritz.box")])
    #expect(
      configs[1].sources == [
        BridgeSource(
          name: "pbx", kind: .ami, host: "pbx.local", port: 5038, username: "callalert",
          secretFile: folder.path + "/ami.secret", endpoints: ["PJSIP/201", "PJSIP/202"])
      ])
    #expect(
      configs[2].sources[0].filters == [
        BridgeFilter(lines: ["POTS"], ignore: true),
        BridgeFilter(callers: ["+49301234567"], boards: ["desk", "bed"], pattern: "family"),
        BridgeFilter(called: ["987654"], boards: ["desk"]),
        BridgeFilter(),
      ])
    #expect(configs[2].sources[0].port == 1012)
  }

  @Test(arguments: [
    (
      "sources:\n  - name: box\n    kind: fritz\n    host: fritz.box\n",
      "config.yaml:3:11: sources[0].kind: 'fritz' is not one of fritzbox, ami"
    ),
    (
      "sources:\n  - name: box\n    kind: fritzbox\n", "config.yaml:2:5: sources[0].host: a source needs 'host:'"
    ),
    (
      "sources:\n  - name: box\n    kind: fritzbox\n    host: fritz.box\n    port: 70000\n",
      "config.yaml:5:11: sources[0].port: '70000' is not a whole number from 1 to 65535"
    ),
    (
      "sources:\n  - name: box\n    kind: fritzbox\n    host: fritz.box\n    username: admin\n",
      "config.yaml:5:5: sources[0].username: 'username' is for kind: ami"
    ),
    (
      "sources:\n  - name: pbx\n    kind: ami\n    host: pbx\n    username: u\n    endpoints: [PJSIP/201]\n",
      "config.yaml:2:5: sources[0].secret_file: an AMI source needs 'secret_file:'"
    ),
    (
      "sources:\n  - name: pbx\n    kind: ami\n    host: pbx\n    username: u\n    secret_file: open.secret\n    endpoints: [PJSIP/201]\n",
      "config.yaml:6:18: sources[0].secret_file: secret file"
    ),
    (
      "sources:\n  - name: pbx\n    kind: ami\n    host: pbx\n    username: u\n    secret_file: ami.secret\n",
      "config.yaml:2:5: sources[0]: an AMI source needs 'endpoints:'"
    ),
    (
      "boards:\n  - name: desk\nsources:\n  - name: box\n    kind: fritzbox\n    host: h\n    filters:\n      - boards: [dsk]\n",
      "config.yaml:8:18: sources[0].filters[0].boards[0]: unknown board 'dsk'; did you mean 'desk'?; boards are desk"
    ),
    (
      "sources:\n  - name: box\n    kind: fritzbox\n    host: h\n    filters:\n      - callers: [\"hello\"]\n",
      "config.yaml:6:19: sources[0].filters[0].callers[0]: 'hello' is not a phone number"
    ),
    (
      "sources:\n  - name: box\n    kind: fritzbox\n    host: h\n    filters:\n      - line: [SIP0]\n",
      "config.yaml:6:9: sources[0].filters[0].line: unknown key 'line' in sources[0].filters[0]; did you mean 'lines'?"
    ),
    (
      "sources:\n  - name: box\n    kind: fritzbox\n    host: h\n  - name: box\n    kind: fritzbox\n    host: h\n",
      "config.yaml:5:11: sources[1].name: source name 'box' is already used by sources[0]"
    ),
    (
      "sources:\n  - name: my box\n    kind: fritzbox\n    host: h\n",
      "config.yaml:2:11: sources[0].name: 'my box' is not a source name"
    ),
  ])
  func aMistakeIsAnErrorAtItsPlace(yaml: String, expected: String) throws {
    let errors = try Folder().errors(yaml)
    #expect(errors.contains { $0.hasPrefix(expected) }, "\(errors)")
  }
}
