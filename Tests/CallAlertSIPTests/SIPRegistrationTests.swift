import CallAlertTestSupport
import Foundation
import Testing

/// Registration, end to end: SIPp as the registrar (a 401 digest challenge, then 200 or 403), the
/// password file's permissions, and the account's health in `callalert status`.
@Suite(
  "SIP registration with SIPp, end to end", .serialized, .timeLimit(.minutes(1)),
  .enabled(if: SIPpProcess.isInstalled, "SIPp is not installed (Tools/scripts/install-deps.sh installs it)"))
struct SIPRegistrationTests {
  /// A password file with `password` and permissions `mode`.
  static func passwordFile(_ password: String, mode: mode_t = 0o600) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sip-\(UUID().uuidString.prefix(8))").path
    try "\(password)\n".write(toFile: path, atomically: false, encoding: .utf8)
    chmod(path, mode)
    return path
  }

  /// Starts SIPp as the registrar on a free port, granting `expires` seconds (`scenario` says what else it
  /// expects); the port and the process.
  static func registrar(
    scenario: String = "register-digest.xml", expires: Int = 120
  ) async throws -> (
    port: Int, process: SIPpProcess
  ) {
    let port = LoopbackPorts.take()
    let process = try await SIPpProcess(
      scenario: scenario, arguments: ["-p", "\(port)", "-m", "1", "-key", "expires", "\(expires)", "-timeout", "20s"])
    // The extension's first REGISTER must find SIPp listening (else it fails with 503 and is retried): wait,
    // bounded, until the port is taken.
    let deadline = ContinuousClock.now + .seconds(5)
    while !LoopbackPorts.isTaken(udpPort: port), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    return (port, process)
  }

  @Test func theExtensionAnswersTheDigestChallengeAndIsRegisteredInStatus() async throws {
    let (port, registrar) = try await Self.registrar()
    defer { registrar.stop() }
    let password = try Self.passwordFile("s3cret")
    defer { try? FileManager.default.removeItem(atPath: password) }
    let rig = try await SIPRig(account: "registrar: 127.0.0.1:\(port)\npassword_file: \(password)")
    #expect(await rig.log.waitFor("registered as sip:201@127.0.0.1"))
    let result = await registrar.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    let status = try await rig.status()
    #expect(status.contains(#""kind":"sip""#) && status.contains(#""state":"connected""#), "\(status)")
    #expect(status.contains(#""address":"127.0.0.1:\#(port)""#), "\(status)")
    try await rig.stop()
  }

  @Test func onceRegisteredOnlyTheRegistrarRingsIt() async throws {
    let (port, registrar) = try await Self.registrar()
    defer { registrar.stop() }
    let password = try Self.passwordFile("s3cret")
    defer { try? FileManager.default.removeItem(atPath: password) }
    // No 'trusted:': only the registrar (127.0.0.1) may ring it. (A registrar given by name is trusted where its
    // answers come from; sofia-sip's resolver finds no names in this sandbox, so the tracker's tests cover that.)
    var rig = try await SIPRig(account: "registrar: 127.0.0.1:\(port)\npassword_file: \(password)")
    #expect(await rig.log.waitFor("registered as sip:201@127.0.0.1"), "\(rig.log.all)")
    #expect((await registrar.result()).status == 0)
    let stranger = try await SIPpProcess(
      scenario: "invite-stranger.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-timeout", "10s", "127.0.0.1:\(rig.port)",
      ],
      localAddress: SIPpProcess.strangerAddress)
    let refused = await stranger.result()
    #expect(refused.status == 0 && !refused.killed, "\(refused.output)")
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "300", "-key", "cancel_header",
        "X-Test: gave up", "-timeout", "10s", "127.0.0.1:\(rig.port)",
      ])
    let id = try await rig.ringingCall()
    #expect((await caller.result()).status == 0)
    #expect(try await rig.history().keys.sorted() == [id])
    try await rig.stop()
  }

  @Test func aRegistrationIsRefreshedBeforeItExpiresAndAnswersTheNewChallenge() async throws {
    // The registrar grants 2 s only: sofia-sip registers again before they end, and that REGISTER is
    // challenged and answered again. SIPp ends with success only after the second 200.
    let (port, registrar) = try await Self.registrar(scenario: "register-digest-refresh.xml", expires: 2)
    defer { registrar.stop() }
    let password = try Self.passwordFile("s3cret")
    defer { try? FileManager.default.removeItem(atPath: password) }
    let rig = try await SIPRig(account: "registrar: 127.0.0.1:\(port)\npassword_file: \(password)")
    let result = await registrar.result()
    #expect(result.status == 0 && !result.killed, "\(result.output)")
    // SIPp ends once it sent the second 200; the daemon logs it when it has read it, a moment later.
    let registrations = await answer(within: 5) {
      rig.log.matching("registered as sip:201@127.0.0.1").count
    } until: {
      $0 >= 2
    }
    #expect(registrations == 2, "\(rig.log.all)")
    #expect(rig.log.matching("REGISTER failed").isEmpty, "\(rig.log.all)")
    try await rig.stop()
  }

  @Test func aRegistrarThatIsDownAtFirstIsRegisteredToAfterTheBackoff() async throws {
    let port = LoopbackPorts.take()
    let password = try Self.passwordFile("s3cret")
    defer { try? FileManager.default.removeItem(atPath: password) }
    var rig = try await SIPRig(account: "registrar: 127.0.0.1:\(port)\npassword_file: \(password)")
    #expect(await rig.log.waitFor("REGISTER failed: 503"))
    #expect(try await rig.status().contains(#""state":"failing""#))
    // Each change of the account's state is an event line beside the engine's events.
    #expect(await rig.event(#""event":"source""#, #""kind":"sip""#, #""state":"failing""#, "503") != nil)
    let registrar = try await SIPpProcess(
      scenario: "register-digest.xml",
      arguments: ["-p", "\(port)", "-m", "1", "-key", "expires", "120", "-timeout", "20s"])
    defer { registrar.stop() }
    #expect(await rig.log.waitFor("registered as sip:201@127.0.0.1"))
    let status = try await rig.status()
    #expect(status.contains(#""state":"connected""#) && !status.contains(#""reason""#), "\(status)")
    #expect(await rig.event(#""event":"source""#, #""kind":"sip""#, #""state":"connected""#) != nil)
    #expect(await registrar.result().status == 0)
    try await rig.stop()
  }

  @Test func aRefusedRegistrationIsFailingInStatusWithTheReasonAndTheNextAttempt() async throws {
    let (port, registrar) = try await Self.registrar()
    defer { registrar.stop() }
    let password = try Self.passwordFile("not-the-password")
    defer { try? FileManager.default.removeItem(atPath: password) }
    let rig = try await SIPRig(account: "registrar: 127.0.0.1:\(port)\npassword_file: \(password)")
    #expect(await rig.log.waitFor("REGISTER failed: 403 Forbidden; next attempt in"))
    let status = try await rig.status()
    #expect(status.contains(#""state":"failing""#) && status.contains("403"), "\(status)")
    #expect(status.contains(#""next_attempt_ms":"#) && status.contains(#""failures":"#), "\(status)")
    #expect(await registrar.result().status == 0)
    try await rig.stop()
  }

  @Test func aPasswordFileOthersMayReadIsRefusedAndTheExtensionStillRings() async throws {
    let password = try Self.passwordFile("s3cret", mode: 0o644)
    defer { try? FileManager.default.removeItem(atPath: password) }
    var rig = try await SIPRig(account: "registrar: 127.0.0.1:9\npassword_file: \(password)")
    #expect(await rig.log.waitFor("may be read by others (mode 644); run chmod 600"))
    let status = try await rig.status()
    #expect(status.contains(#""state":"failing""#) && status.contains("chmod 600"), "\(status)")
    // Nothing was sent to the registrar, and a call straight to the extension still rings.
    let caller = try await SIPpProcess(
      scenario: "invite-cancel.xml",
      arguments: [
        "-s", "201", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "300", "-key", "cancel_header",
        "X-Test: gave up", "-timeout", "20s", "127.0.0.1:\(rig.port)",
      ])
    let id = try await rig.ringingCall()
    #expect(await rig.event(#""event":"missed""#, id) != nil)
    #expect(await caller.result().status == 0)
    try await rig.stop()
  }
}
