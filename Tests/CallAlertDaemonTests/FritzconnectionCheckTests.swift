import CallAlertTestSupport
import Foundation
import Testing

/// The fake FRITZ!Box of the end-to-end tests, read by an independent client: PyPI fritzconnection's
/// `FritzMonitor` (Tools/scripts/check-fritzmonitor.py), which also checks each line against AVM's format.
/// Skipped, saying so, where python3 or fritzconnection is missing (Tools/scripts/install-deps.sh installs it).
@Suite(
  "FRITZ!Box fake against fritzconnection", .timeLimit(.minutes(1)),
  .enabled(
    "python3 with fritzconnection is not installed; run Tools/scripts/install-deps.sh (pip install fritzconnection)"
  ) { await PythonScript.hasFritzconnection.value })
struct FritzconnectionCheckTests {
  @Test(arguments: ["fritzbox-ring-answered.txt", "fritzbox-two-overlapping.txt", "fritzbox-outgoing.txt"])
  func fritzMonitorReadsEveryLineTheFakeBoxSends(_ file: String) async throws {
    let steps = try FakePhoneServer.steps(file).filter {
      if case .data = $0 { true } else { false }
    }
    let sent = steps.flatMap { step -> [String] in
      guard case .data(let bytes) = step else { return [] }
      return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }
    let server = try FakePhoneServer(playing: steps)
    let result = try await PythonScript.run(
      "Tools/scripts/check-fritzmonitor.py", arguments: ["127.0.0.1", String(server.port), String(sent.count)])
    server.stop()
    #expect(result.succeeded, "\(result)")
    #expect(result.output.split(separator: "\n").map(String.init) == sent)
    #expect(server.failure == nil)
  }
}

/// Runs the repository's Python scripts (off the concurrency pool: ``SpawnedProcess``).
enum PythonScript {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Whether `python3` can import fritzconnection's call monitor (asked once, at most 10 s).
  static let hasFritzconnection = Task {
    let outcome = try? await SpawnedProcess.run(
      "python3", ["-c", "import fritzconnection.core.fritzmonitor"], within: 10)
    return outcome?.succeeded == true
  }

  /// Runs a script with `python3`, at most 50 s.
  static func run(_ script: String, arguments: [String]) async throws -> SpawnedProcess.Outcome {
    try await SpawnedProcess.run("python3", [root.appendingPathComponent(script).path] + arguments, within: 50)
  }
}
