import Foundation

/// Tools/scripts/light-reports-reference.py, run with python3 where busylight-core is installed.
enum ReferenceScript {
  static let path = BusylightCoreReferenceTests.root.appendingPathComponent("Tools/scripts/light-reports-reference.py")

  /// Whether python3 imports busylight-core (asked once, at most 20 s).
  static let isAvailable: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import busylight_core.vendors.kuando.implementation"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let done = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in done.signal() }
    guard (try? process.run()) != nil else { return false }
    guard done.wait(timeout: .now() + 20) == .success else {
      process.terminate()
      return false
    }
    return process.terminationStatus == 0
  }()

  /// The script's standard output; throws when it fails.
  static func run() async throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", path.path]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    // Read while it runs: a pipe's buffer holds less than the script prints.
    let reading = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    let text = String(decoding: await reading.value, as: UTF8.self)
    guard status == 0 else {
      let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      throw ScriptFailure(status: status, message: message)
    }
    return text
  }

  /// The script exited with an error.
  struct ScriptFailure: Error {
    var status: Int32
    var message: String
  }
}
