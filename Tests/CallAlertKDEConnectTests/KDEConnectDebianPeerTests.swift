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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["90", "/bin/bash", script, callalert]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read to its end on a thread of its own (the script ends by itself, timeout bounds it), not on one of the
    // test pool's few threads.
    let reading = output.fileHandleForReading
    let text = await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(returning: String(decoding: (try? reading.readToEnd()) ?? Data(), as: UTF8.self))
      }
    }
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text)")
    #expect(text.contains("paired with"), "\(text)")
    #expect(text.split(separator: "\n").contains("PASS"), "\(text)")
  }
}
