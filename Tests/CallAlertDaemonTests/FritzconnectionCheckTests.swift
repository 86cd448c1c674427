import Foundation
import Testing

/// The fake FRITZ!Box of the end-to-end tests, read by an independent client: PyPI fritzconnection's
/// `FritzMonitor` (Tools/scripts/check-fritzmonitor.py), which also checks each line against AVM's format.
/// Skipped, saying so, where python3 or fritzconnection is missing (Tools/scripts/install-deps.sh installs it).
@Suite(
  "FRITZ!Box fake against fritzconnection", .timeLimit(.minutes(1)),
  .enabled(
    if: PythonScript.hasFritzconnection,
    "python3 with fritzconnection is not installed; run Tools/scripts/install-deps.sh (pip install fritzconnection)"))
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
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.split(separator: "\n").map(String.init) == sent)
    #expect(server.failure == nil)
  }
}

/// Runs the repository's Python scripts.
enum PythonScript {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Whether `python3` can import fritzconnection's call monitor (asked once, at most 10 s).
  static let hasFritzconnection: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import fritzconnection.core.fritzmonitor"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let done = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in done.signal() }
    guard (try? process.run()) != nil else { return false }
    guard done.wait(timeout: .now() + 10) == .success else {
      process.terminate()
      return false
    }
    return process.terminationStatus == 0
  }()

  /// Runs a script with `python3`; its exit status, standard output and standard error.
  static func run(_ script: String, arguments: [String]) async throws -> (status: Int32, output: String, errors: String)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", root.appendingPathComponent(script).path] + arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return (status, out, err)
  }
}
