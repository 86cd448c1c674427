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
        let outcome = try await SpawnedProcess.run(
          "/usr/bin/openssl",
          [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", subject, "-addext",
            "subjectAltName=IP:127.0.0.1", "-keyout", folder.appendingPathComponent("\(name).key").path, "-out",
            folder.appendingPathComponent("\(name).crt").path,
          ], within: 50)
        guard outcome.succeeded else { throw SIPRig.RigError("openssl req failed: \(outcome)") }
      }
      try FileManager.default.copyItem(
        at: folder.appendingPathComponent("server.crt"), to: URL(fileURLWithPath: trusted + "/cafile.pem"))
      try FileManager.default.copyItem(
        at: folder.appendingPathComponent("other.crt"), to: URL(fileURLWithPath: untrusted + "/cafile.pem"))
    }
  }

  /// `openssl s_server` with the registrar's certificate on a free TCP port; what it receives, as a stream.
  final class TLSRegistrar: Sendable {
    let port: Int
    let received: AsyncStream<String>
    private let child: SpawnedProcess

    init(certificates: Certificates) async throws {
      port = LoopbackPorts.take()
      child = try await SpawnedProcess(
        "/usr/bin/openssl",
        [
          "s_server", "-accept", "127.0.0.1:\(port)", "-cert",
          certificates.folder.appendingPathComponent("server.crt").path,
          "-key", certificates.folder.appendingPathComponent("server.key").path,
        ],
        input: .pipe)  // held open: s_server ends when its input does
      received = child.lines
    }

    /// Waits until what it received contains `text`; false when it ended first.
    func receives(_ text: String) async -> Bool {
      var seen = ""
      for await line in received {
        seen += line + "\n"
        if seen.contains(text) { return true }
      }
      return false
    }

    func stop() {
      child.kill(SIGKILL)
      child.closeInput()
    }
  }

  @Test func aRegistrarWhoseCertificateVerifiesGetsTheRegister() async throws {
    let certificates = try await Certificates()
    defer { try? FileManager.default.removeItem(at: certificates.folder) }
    let registrar = try await TLSRegistrar(certificates: certificates)
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
    let registrar = try await TLSRegistrar(certificates: certificates)
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
