import CallAlertTestSupport
import Foundation

/// Tools/scripts/light-reports-reference.py, run with python3 where busylight-core is installed.
enum ReferenceScript {
  static let path = BusylightCoreReferenceTests.root.appendingPathComponent("Tools/scripts/light-reports-reference.py")

  /// Whether python3 imports busylight-core (asked once, at most 20 s, off the concurrency pool).
  static let isAvailable = Task {
    let outcome = try? await SpawnedProcess.run(
      "python3", ["-c", "import busylight_core.vendors.kuando.implementation"], within: 20)
    return outcome?.succeeded == true
  }

  /// The script's standard output; throws when it fails.
  static func run() async throws -> String {
    let outcome = try await SpawnedProcess.run("python3", [path.path], within: 50)
    guard outcome.succeeded else { throw ScriptFailure(outcome: outcome) }
    return outcome.output
  }

  /// The script failed.
  struct ScriptFailure: Error, CustomStringConvertible {
    var outcome: SpawnedProcess.Outcome
    var description: String { "\(path.lastPathComponent): \(outcome)" }
  }
}
