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
  private let process: Process
  private let input: FileHandle

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
  ) throws {
    self.name = name
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      [
        "python3", Self.script, "--name", name, "--state", state, "--protocol", String(protocolVersion),
        "--timeout", "30",
      ] + (id.map { ["--id", $0] } ?? [])
      + (listenUDP.map { ["--listen-udp", String($0)] } ?? ["--daemon", "127.0.0.1:\(daemonUDPPort)"])
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stdout
    try process.run()
    self.process = process
    input = stdin.fileHandleForWriting
    let reading = stdout.fileHandleForReading
    let output = output
    // A thread of its own reads, not FileHandle.readabilityHandler (libdispatch and closed pipes crashed the
    // test process before; see SIPTLSTests).
    Thread.detachNewThread {
      var pending: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4_096)
      while true {
        let count = read(reading.fileDescriptor, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        pending += buffer[..<count]
        while let newline = pending.firstIndex(of: 0x0A) {
          output.append(String(decoding: pending[..<newline], as: UTF8.self))
          pending.removeSubrange(...newline)
        }
      }
      output.append("<exited>")
      try? reading.close()
    }
  }

  /// Types a command into the phone.
  func send(_ command: String) {
    try? input.write(contentsOf: Data((command + "\n").utf8))
  }

  /// Waits for an output line starting with `prefix`; nil after `seconds`.
  func says(_ prefix: String, within seconds: Double = 20) async -> String? {
    await output.first(within: seconds) { $0.hasPrefix(prefix) }
  }

  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    try? input.close()
  }
}
