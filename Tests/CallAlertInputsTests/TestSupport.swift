import CallAlertInputs
import CallAlertTestSupport
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
