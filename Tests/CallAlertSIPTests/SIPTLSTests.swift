import CallAlertTestSupport
import Foundation
import Synchronization
import Testing

/// TLS: the extension registers over TLS only to a registrar whose certificate verifies against
/// its `ca_directory`. The registrar is `openssl s_server` on loopback (Debian's SIPp has no TLS): it shows
/// the REGISTER that arrives through a verified connection; with another CA, the connection is refused,
/// nothing arrives, and the log says why.
@Suite(
  "SIP over TLS, end to end", .serialized, .timeLimit(.minutes(1)),
  .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl is not installed"))
struct SIPTLSTests {
  /// A folder with the registrar's certificate (for 127.0.0.1), another CA's, and a `ca_directory` for each.
  struct Certificates {
    let folder: URL
    var trusted: String { folder.appendingPathComponent("trusted").path }
    var untrusted: String { folder.appendingPathComponent("untrusted").path }

    init() async throws {
      folder = FileManager.default.temporaryDirectory.appendingPathComponent("sip-tls-\(UUID().uuidString.prefix(8))")
      for name in ["trusted", "untrusted"] {
        try FileManager.default.createDirectory(
          at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
      }
      for (name, subject) in [("server", "/CN=127.0.0.1"), ("other", "/CN=another CA")] {
        let status = await Self.run(
          "/usr/bin/openssl",
          [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", subject, "-addext",
            "subjectAltName=IP:127.0.0.1", "-keyout", folder.appendingPathComponent("\(name).key").path, "-out",
            folder.appendingPathComponent("\(name).crt").path,
          ])
        guard status == 0 else { throw SIPRig.RigError("openssl req failed with \(status)") }
      }
      try FileManager.default.copyItem(
        at: folder.appendingPathComponent("server.crt"), to: URL(fileURLWithPath: trusted + "/cafile.pem"))
      try FileManager.default.copyItem(
        at: folder.appendingPathComponent("other.crt"), to: URL(fileURLWithPath: untrusted + "/cafile.pem"))
    }

    /// Runs a command to its end (bounded by the suite's time limit); its exit status.
    static func run(_ executable: String, _ arguments: [String]) async -> Int32 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: executable)
      process.arguments = arguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      let (ended, sink) = AsyncStream.makeStream(of: Int32.self)
      process.terminationHandler = { sink.yield($0.terminationStatus) }
      guard (try? process.run()) != nil else { return -1 }
      var iterator = ended.makeAsyncIterator()
      return await iterator.next() ?? -1
    }
  }

  /// `openssl s_server` with the registrar's certificate on a free TCP port; what it receives, as a stream.
  final class TLSRegistrar: Sendable {
    let port: Int
    let received: AsyncStream<String>
    private let process: Process
    private let input = Pipe()

    init(certificates: Certificates) throws {
      port = SIPpProcess.freeTCPPort()
      let output = Pipe()
      let (received, sink) = AsyncStream.makeStream(of: String.self)
      self.received = received
      process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      process.arguments = [
        "s_server", "-accept", "127.0.0.1:\(port)", "-cert",
        certificates.folder.appendingPathComponent("server.crt").path,
        "-key", certificates.folder.appendingPathComponent("server.key").path,
      ]
      process.standardInput = input  // held open: s_server ends when its input does
      process.standardOutput = output
      process.standardError = output
      // Read on a thread of its own, not through FileHandle.readabilityHandler: Foundation closes the pipe when
      // the handle goes while libdispatch may still have its source registered, which crashed the test process
      // inside _dispatch_event_loop_drain (seen in make test; the daemon tests' reader changed for the same
      // reason). The thread ends at the end of the output, when s_server is killed.
      try process.run()
      let reading = output.fileHandleForReading
      Thread.detachNewThread {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
          let count = read(reading.fileDescriptor, &buffer, buffer.count)
          if count < 0 && errno == EINTR { continue }
          guard count > 0 else { break }
          sink.yield(String(decoding: buffer[..<count], as: UTF8.self))
        }
        sink.finish()
        try? reading.close()
      }
    }

    /// Waits until what it received contains `text`; false when it ended first.
    func receives(_ text: String) async -> Bool {
      var seen = ""
      for await chunk in received {
        seen += chunk
        if seen.contains(text) { return true }
      }
      return false
    }

    func stop() {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
  }

  @Test func aRegistrarWhoseCertificateVerifiesGetsTheRegister() async throws {
    let certificates = try await Certificates()
    defer { try? FileManager.default.removeItem(at: certificates.folder) }
    let registrar = try TLSRegistrar(certificates: certificates)
    defer { registrar.stop() }
    let rig = try await SIPRig(
      account: "registrar: 127.0.0.1:\(registrar.port)\ntransport: tls\nca_directory: \(certificates.trusted)")
    #expect(await registrar.receives("REGISTER sips:127.0.0.1:\(registrar.port) SIP/2.0"))
    #expect(rig.log.matching("Error with certificate").isEmpty)
    try await rig.stop()
  }

  @Test func aRegistrarWhoseCertificateDoesNotVerifyIsRefusedWithAWarning() async throws {
    let certificates = try await Certificates()
    defer { try? FileManager.default.removeItem(at: certificates.folder) }
    let registrar = try TLSRegistrar(certificates: certificates)
    defer { registrar.stop() }
    let rig = try await SIPRig(
      account: "registrar: 127.0.0.1:\(registrar.port)\ntransport: tls\nca_directory: \(certificates.untrusted)")
    #expect(await rig.log.waitFor("Error with certificate"))
    #expect(rig.log.all.contains { $0.hasPrefix("warning") && $0.contains("Error with certificate") }, "\(rig.log.all)")
    #expect(try await !rig.status().contains(#""state":"connected""#))
    try await rig.stop()
    registrar.stop()
    // The connection was dropped in the handshake: no REGISTER ever reached the registrar.
    #expect(!(await registrar.receives("REGISTER")))
  }
}
