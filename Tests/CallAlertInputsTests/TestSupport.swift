import CallAlertInputs
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

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

/// Parses `text` as a config file in a folder of its own that holds the secret files it names (the AMI
/// secret is read at load), as a user who pasted the example beside their secrets would.
func parseBesideItsSecrets(_ text: String) throws -> (DaemonConfiguration, String) {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "callalert-config-\(UUID().uuidString.prefix(8))"
  ).path
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  for secret in ["http.token", "twilio.token", "vonage.secret", "ami.secret", "mqtt.secret", "sip.secret"] {
    let path = "\(folder)/\(secret)"
    FileManager.default.createFile(atPath: path, contents: Data("s3cret-\(secret)\n".utf8))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
  }
  let config = try ConfigurationFile.parse(
    text: text, file: "\(folder)/config.yaml", environment: testEnvironment, userID: 1000)
  return (config, folder)
}
