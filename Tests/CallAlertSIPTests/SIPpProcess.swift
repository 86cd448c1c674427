import CallAlertTestSupport
import Foundation
import Synchronization

/// SIPp (Debian's `sip-tester`) as a real SIP peer on loopback, bounded: every run has a deadline after which
/// it is killed, and its end is awaited through `terminationHandler` (never `waitUntilExit`).
struct SIPpProcess: Sendable {
  /// How a run ended.
  struct Result: Sendable {
    /// SIPp's exit status: 0 when every call went as the scenario says.
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

  let process = Process()
  private let outputFile: URL
  private let finished: AsyncStream<Int32>
  private let deadline: Duration

  /// The loopback address a test's stranger sends from: not the trusted 127.0.0.1.
  static let strangerAddress = "127.0.0.2"

  /// Starts `sipp` with a scenario of ``scenarios`` and arguments, on `localAddress` (127.0.0.1, or
  /// ``strangerAddress`` for a peer the extension must not trust), for at most `deadline`.
  init(
    scenario: String, arguments: [String], localAddress: String = "127.0.0.1", deadline: Duration = .seconds(30)
  ) throws {
    outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("sipp-\(UUID().uuidString).txt")
    _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputFile)
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sipp")
    process.arguments =
      ["-sf", Self.scenarios.appendingPathComponent(scenario).path, "-i", localAddress, "-nostdin"] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = output
    process.currentDirectoryURL = FileManager.default.temporaryDirectory
    let (finished, sink) = AsyncStream.makeStream(of: Int32.self)
    self.finished = finished
    self.deadline = deadline
    process.terminationHandler = { process in
      sink.yield(process.terminationStatus)
      sink.finish()
    }
    try process.run()
    try? output.close()
  }

  /// Waits for the run to end (killing it at its deadline); its status and output.
  func result() async -> Result {
    let killed = Mutex(false)
    let watchdog = Task { [process, deadline] in
      guard (try? await Task.sleep(for: deadline)) != nil, process.isRunning else { return }
      killed.withLock { $0 = true }
      kill(process.processIdentifier, SIGKILL)
    }
    var iterator = finished.makeAsyncIterator()
    let status = await iterator.next() ?? -1
    watchdog.cancel()
    let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(at: outputFile)
    return Result(status: status, killed: killed.withLock { $0 }, output: text)
  }

  /// Kills it now (a test that ends early).
  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }

  /// A UDP port on 127.0.0.1 for a test's server or peer (``LoopbackPorts``).
  static func freeUDPPort() -> Int { LoopbackPorts.take() }

  /// A TCP port on 127.0.0.1 for a test's server or peer (``LoopbackPorts``).
  static func freeTCPPort() -> Int { LoopbackPorts.take() }
}
