import CallAlertTestSupport
import Foundation
import Testing

/// Discovery and pairing against KDE's own implementation: Debian's kdeconnectd (protocol 7), headless, in a
/// network namespace of its own beside the daemon's (Fixtures/kdeconnectd-peer.sh). Needs root (namespaces),
/// `ip`, `dbus-run-session` and the kdeconnect package; skipped, saying so, without them.
@Suite(.enabled(if: DebianKDEConnect.isPossible, "needs root, ip, dbus-run-session and Debian's kdeconnect"))
struct KDEConnectDebianPeerTests {
  @Test(.timeLimit(.minutes(2))) func kdeconnectdHearsTheDaemonAndTheyPair() async throws {
    let callalert = try #require(DebianKDEConnect.binary(), "callalert is not built beside the tests")
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/kdeconnectd-peer.sh").path
    // Off the concurrency pool (``SpawnedProcess``); the script ends by itself and timeout bounds it.
    let outcome = try await SpawnedProcess.run("/usr/bin/timeout", ["90", "/bin/bash", script, callalert], within: 100)
    let text = outcome.output + outcome.errors
    #expect(outcome.succeeded, "\(outcome)")
    #expect(text.contains("paired with"), "\(text)")
    #expect(text.split(separator: "\n").contains("PASS"), "\(text)")
  }
}
