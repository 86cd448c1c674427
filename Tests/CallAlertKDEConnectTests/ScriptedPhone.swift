import CallAlertTestSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The scripted phone (Fixtures/phone.py, Python's own ssl module): started against the daemon's UDP port,
/// driven by commands on its standard input, its output lines collected.
final class ScriptedPhone: Sendable {
  let output = LineLog()
  let name: String
  private let child: SpawnedProcess

  static var script: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/phone.py").path
  }

  /// Whether python3 and openssl are here (the phone needs both).
  static var isAvailable: Bool {
    ["/usr/bin/openssl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
      && (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/python3")
      }
  }

  /// A phone that announces itself to the daemon's UDP port (the daemon connects; the phone is TLS's client),
  /// or with `listenUDP` one that waits there for the daemon's announcement and connects (TLS's server).
  init(
    daemonUDPPort: Int, listenUDP: Int? = nil, name: String, state: String, id: String? = nil,
    protocolVersion: Int = 8
  ) async throws {
    self.name = name
    child = try await SpawnedProcess(
      "python3",
      [
        Self.script, "--name", name, "--state", state, "--protocol", String(protocolVersion), "--timeout", "30",
      ] + (id.map { ["--id", $0] } ?? [])
        + (listenUDP.map { ["--listen-udp", String($0)] } ?? ["--daemon", "127.0.0.1:\(daemonUDPPort)"]),
      input: .pipe)
    let (lines, output) = (child.lines, output)
    Task {
      for await line in lines { output.append(line) }
      output.append("<exited>")
    }
  }

  /// Types a command into the phone.
  func send(_ command: String) {
    child.write(command + "\n")
  }

  /// Waits for an output line starting with `prefix`; nil after `seconds`.
  func says(_ prefix: String, within seconds: Double = 20) async -> String? {
    await output.first(within: seconds) { $0.hasPrefix(prefix) }
  }

  func stop() {
    child.kill(SIGKILL)
    child.closeInput()
  }
}
