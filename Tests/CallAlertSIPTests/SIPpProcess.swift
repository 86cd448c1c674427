import CallAlertTestSupport
import Foundation
import Synchronization

/// SIPp (Debian's `sip-tester`) as a real SIP peer on loopback, bounded: every run has a deadline after which
/// it is killed. A ``SpawnedProcess``: its end is observed by swift-subprocess, its output collected.
struct SIPpProcess: Sendable {
  /// How a run ended.
  struct Result: Sendable {
    /// SIPp's exit code: 0 when every call went as the scenario says; -1 when a signal ended it.
    var status: Int32
    /// Whether the deadline killed it.
    var killed: Bool
    /// Its standard output and error.
    var output: String
  }

  /// The folder of the scenarios.
  static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "Scenarios")

  /// Whether SIPp is installed (Tools/scripts/install-deps.sh installs it).
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/sipp") }

  private let child: SpawnedProcess
  private let output: Task<String, Never>
  private let deadline: Duration

  /// The loopback address a test's stranger sends from: not the trusted 127.0.0.1.
  static let strangerAddress = "127.0.0.2"

  /// Starts `sipp` with a scenario of ``scenarios`` and arguments, on `localAddress` (127.0.0.1, or
  /// ``strangerAddress`` for a peer the extension must not trust), for at most `deadline`.
  init(
    scenario: String, arguments: [String], localAddress: String = "127.0.0.1", deadline: Duration = .seconds(30)
  ) async throws {
    child = try await SpawnedProcess(
      "/usr/bin/sipp",
      ["-sf", Self.scenarios.appendingPathComponent(scenario).path, "-i", localAddress, "-nostdin"] + arguments,
      workingDirectory: FileManager.default.temporaryDirectory.path)
    let lines = child.lines
    output = Task {
      var text = ""
      for await line in lines { text += line + "\n" }
      return text
    }
    self.deadline = deadline
  }

  /// Waits for the run to end (killing it at its deadline); its status and output.
  func result() async -> Result {
    let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
    let status = await child.exit(within: seconds)
    // A grandchild never holds SIPp's output: it ends with SIPp, killed or not.
    let text = await output.value
    return Result(status: status?.exitCode ?? -1, killed: status == nil, output: text)
  }

  /// Kills it now (a test that ends early).
  func stop() {
    child.kill(SIGKILL)
  }
}
