import CallAlertControl
import CallAlertDoctor
import CallAlertText
import Foundation
import Testing

/// `callalert doctor` and the phone-system sources (docs/SOURCES.md): the daemon's view when it runs, a TCP
/// connect and the secret file when it does not.
@Suite("Doctor: sources")
struct DoctorSourceTests {
  /// A config with a FRITZ!Box and an AMI source (its secret file real and 0600, as the config loader wants).
  final class Setup {
    let folder: URL
    let config: String
    let secret: String

    init() throws {
      folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-sources-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      secret = folder.appendingPathComponent("ami.secret").path
      try "s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
      config = folder.appendingPathComponent("config.yaml").path
      try """
      sources:
        - name: box
          kind: fritzbox
          host: 192.168.178.1
        - name: pbx
          kind: ami
          host: pbx.lan
          username: callalert
          secret_file: \(secret)
          endpoints: [PJSIP/201]
      """.write(toFile: config, atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
  }

  static func status(sources: String?) throws -> StatusReport {
    let list = sources.map { #","sources":[\#($0)]"# } ?? ""
    let json =
      #"{"calls":[],"missed":[],"do_not_disturb":{"mode":"off","active":false,"silent":false},"boards":[]\#(list)}"#
    return try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
  }

  @Test func noSourcesIsOneSkippedFindingPointingAtTheDocs() async throws {
    let report = await DoctorTests.run(DoctorTests.brokenMachine(), Script())
    let sources = report.findings.filter { $0.check.hasPrefix("source") }
    #expect(sources.count == 1)
    #expect(sources.first?.check == "sources")
    #expect(sources.first?.status == .skipped)
    #expect(sources.first?.summary.contains("docs/SOURCES.md") == true)
    #expect(sources.first?.summary.contains("in this version") == false)
  }

  @Test func aRunningDaemonsViewIsReportedPerSourceWithTheReasonAndTheFix() async throws {
    let setup = try Setup()
    let status = try Self.status(
      sources: #"""
        {"name":"box","kind":"fritzbox","address":"192.168.178.1:1012","state":"failing",\#
        "reason":"192.168.178.1:1012: Connection refused","next_attempt_ms":3870,"failures":4},\#
        {"name":"pbx","kind":"ami","address":"pbx.lan:5038","state":"connected","failures":0}
        """#)
    let script = Script(daemon: .success(status))
    let report = await DoctorTests.run(DoctorTests.brokenMachine(), script, config: setup.config)
    let box = try #require(report.finding("source box"))
    #expect(box.status == .error)
    #expect(box.summary.contains("192.168.178.1:1012: Connection refused"))
    #expect(box.summary.contains("4 failure(s) in a row; next attempt in 4 s"))
    #expect(box.fix?.contains("switch the call monitor on: dial #96*5* on a phone of the box") == true)
    let pbx = try #require(report.finding("source pbx"))
    #expect(pbx.status == .ok)
    #expect(pbx.summary.contains("connected and logged in to pbx.lan:5038"))
    // The daemon's view: nothing is dialled from here.
    #expect(script.connectLog.all.isEmpty)
    #expect(report.finding("source pbx: secret") == nil)
  }

  @Test func anAMILoginTheDaemonWasRefusedPointsAtManagerConfAndTheSecretFile() async throws {
    let setup = try Setup()
    let status = try Self.status(
      sources: #"""
        {"name":"box","kind":"fritzbox","address":"192.168.178.1:1012","state":"connecting","failures":0},\#
        {"name":"pbx","kind":"ami","address":"pbx.lan:5038","state":"failing",\#
        "reason":"AMI refused the login of 'callalert': Authentication failed","failures":1}
        """#)
    let report = await DoctorTests.run(
      DoctorTests.brokenMachine(), Script(daemon: .success(status)), config: setup.config)
    #expect(report.finding("source box")?.status == .warning)
    let pbx = try #require(report.finding("source pbx"))
    #expect(pbx.status == .error)
    #expect(pbx.summary.contains("Authentication failed"))
    #expect(pbx.fix?.contains("manager.conf's [callalert]") == true)
    #expect(pbx.fix?.contains("0600") == true)
  }

  @Test func aSourceTheRunningDaemonDoesNotKnowSaysToRestartIt() async throws {
    let setup = try Setup()
    let report = await DoctorTests.run(
      DoctorTests.brokenMachine(), Script(daemon: .success(try Self.status(sources: nil))), config: setup.config)
    #expect(report.finding("source box")?.status == .warning)
    #expect(report.finding("source box")?.fix?.contains("restart the daemon") == true)
  }

  @Test func withoutADaemonEachSourceIsDialledWithAShortTimeoutAndTheSecretChecked() async throws {
    let setup = try Setup()
    var script = Script()
    script.connects["pbx.lan:5038"] = .success(())
    script.secrets[setup.secret] = .failure(.init("secret file \(setup.secret) is empty"))
    let report = await DoctorTests.run(DoctorTests.brokenMachine(), script, config: setup.config)
    #expect(script.connectLog.all.map(\.address) == ["192.168.178.1:1012", "pbx.lan:5038"])
    #expect(script.connectLog.all.allSatisfy { $0.timeout <= .seconds(2) })
    let box = try #require(report.finding("source box"))
    #expect(box.status == .error)
    #expect(box.summary == "192.168.178.1:1012 does not accept a connection: 192.168.178.1:1012: Connection refused")
    #expect(box.fix?.contains("#96*5*") == true)
    #expect(report.finding("source pbx")?.status == .ok)
    let secret = try #require(report.finding("source pbx: secret"))
    #expect(secret.status == .error)
    #expect(secret.summary.contains("is empty"))
    #expect(secret.fix?.contains("chmod 600 \(setup.secret)") == true)
    #expect(!report.isHealthy)
  }

  @Test func theRealSecretFileCheckRefusesAFileOthersMayRead() throws {
    let setup = try Setup()
    guard case .success = DoctorProbes.live.checkSecretFile(setup.secret) else {
      Issue.record("a 0600 secret file was refused")
      return
    }
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: setup.secret)
    guard case .failure(let failure) = DoctorProbes.live.checkSecretFile(setup.secret) else {
      Issue.record("a 0644 secret file passed")
      return
    }
    #expect(failure.description.contains("chmod 600"))
  }

  @Test func theJSONCarriesEverySourceFinding() async throws {
    let setup = try Setup()
    let report = await DoctorTests.run(DoctorTests.brokenMachine(), Script(), config: setup.config)
    let data = try JSONEncoder().encode(report)
    let object = try JSONParser.parse(Array(data))
    let checks = try #require(object["checks"]?.elements)
    let sources = checks.filter { $0["check"]?.string?.hasPrefix("source ") == true }
    #expect(sources.map { $0["check"]?.string } == ["source box", "source pbx", "source pbx: secret"])
    #expect(sources.map { $0["status"]?.string } == ["error", "error", "ok"])
    #expect(sources.allSatisfy { $0["summary"]?.string != nil })
    #expect(sources[0]["fix"]?.string != nil)
  }
}

extension DoctorSourceTests {
  @Test func aConfigThatDoesNotLoadDoesNotClaimThereAreNoSources() async throws {
    let setup = try Setup()
    try "sources:\n  - name: box\n    kind: fritz\n    host: fritz.box\n".write(
      toFile: setup.config, atomically: true, encoding: .utf8)
    let report = await DoctorTests.run(DoctorTests.brokenMachine(), Script(), config: setup.config)
    #expect(report.finding("config")?.status == .error)
    #expect(report.finding("sources")?.status == .skipped)
    #expect(report.finding("sources")?.summary.contains("the config does not load") == true)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension DoctorSourceTests {
  /// A loopback listener on a free port (never accepted from: the kernel completes the handshake), or nil.
  static func loopbackListener(listening: Bool = true) -> (descriptor: CInt, port: Int)? {
    let descriptor = socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && (!listening || listen(descriptor, 4) == 0)
          && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound else {
      close(descriptor)
      return nil
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
  }

  @Test(.timeLimit(.minutes(1))) func theRealConnectReachesALoopbackListenerAndIsRefusedByAClosedPort() async throws {
    let listener = try #require(Self.loopbackListener())
    guard case .success = await DoctorProbes.live.connectTCP("127.0.0.1", listener.port, .seconds(2)) else {
      Issue.record("the connect to a listening loopback port failed")
      close(listener.descriptor)
      return
    }
    close(listener.descriptor)
    // A port bound but not listening refuses, and stays ours: a port merely closed could be taken at once by
    // another test binding port 0 (the suites run in parallel, many with servers on free ports).
    let bound = try #require(Self.loopbackListener(listening: false))
    defer { close(bound.descriptor) }
    guard case .failure(let failure) = await DoctorProbes.live.connectTCP("127.0.0.1", bound.port, .seconds(2))
    else {
      Issue.record("a port nobody listens on accepted a connection")
      return
    }
    #expect(failure.description.contains("127.0.0.1:\(bound.port)"))
  }
}

/// `callalert doctor` and the MQTT broker and SIP accounts (docs/MQTT.md, docs/SIP.md): before, a config with
/// only those was told "no phone-system sources configured" and nothing of them was checked.
@Suite("Doctor: MQTT and SIP")
struct DoctorServiceTests {
  static func config(_ setup: DoctorSourceTests.Setup) throws -> String {
    let path = setup.folder.appendingPathComponent("services.yaml").path
    try """
    mqtt:
      broker: mqtt://broker.lan
      node_id: upstairs
      user: callalert
      password_file: \(setup.secret)
    sip:
      accounts:
        - name: desk
          registrar: pbx.lan
          user: "201"
          transport: tcp
          password_file: \(setup.secret)
        - name: trunk
          registrar: sip.example.com:5070
          user: "202"
    """.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func withoutADaemonTheBrokerAndATCPRegistrarAreDialledAndPasswordsChecked() async throws {
    let setup = try DoctorSourceTests.Setup()
    var script = Script()
    script.connects["broker.lan:1883"] = .success(())
    script.secrets[setup.secret] = .failure(.init("secret file \(setup.secret) may be read by others"))
    let report = await DoctorTests.run(DoctorTests.brokenMachine(), script, config: try Self.config(setup))
    #expect(report.finding("config")?.status == .ok, "\(String(describing: report.finding("config")))")
    #expect(script.connectLog.all.map(\.address) == ["broker.lan:1883", "pbx.lan:5060"])
    #expect(report.finding("mqtt upstairs")?.status == .ok)
    #expect(report.finding("mqtt upstairs: password")?.status == .error)
    #expect(report.finding("mqtt upstairs: password")?.fix?.contains("mqtt.password_file") == true)
    let desk = try #require(report.finding("sip desk"))
    #expect(desk.status == .error)
    #expect(desk.summary == "pbx.lan:5060 does not accept a connection: pbx.lan:5060: Connection refused")
    #expect(report.finding("sip desk: password")?.status == .error)
    // UDP: only a REGISTER would tell, and that is the daemon's to send.
    let trunk = try #require(report.finding("sip trunk"))
    #expect(trunk.status == .skipped)
    #expect(trunk.summary.contains("sip.example.com:5070 over UDP is not tried"))
    let sources = try #require(report.finding("sources"))
    #expect(sources.summary.contains("MQTT and SIP (checked below)"), "\(sources.summary)")
  }

  @Test func aRunningDaemonsViewOfTheBrokerAndTheAccountsIsReported() async throws {
    let setup = try DoctorSourceTests.Setup()
    let status = try DoctorSourceTests.status(
      sources: #"""
        {"name":"upstairs","kind":"mqtt","address":"mqtt://broker.lan","state":"connected","failures":0},\#
        {"name":"desk","kind":"sip","address":"pbx.lan","state":"failing",\#
        "reason":"the registrar answered 403 Forbidden","next_attempt_ms":29500,"failures":3}
        """#)
    let script = Script(daemon: .success(status))
    let report = await DoctorTests.run(DoctorTests.brokenMachine(), script, config: try Self.config(setup))
    #expect(report.finding("mqtt upstairs")?.status == .ok)
    #expect(report.finding("mqtt upstairs")?.summary == "connected to mqtt://broker.lan (as the daemon reports)")
    let desk = try #require(report.finding("sip desk"))
    #expect(desk.status == .error)
    #expect(
      desk.summary
        == "the daemon cannot connect to pbx.lan: the registrar answered 403 Forbidden (3 failure(s) in a row; "
        + "next attempt in 30 s)")
    #expect(desk.fix?.contains("docs/SIP.md") == true)
    // An account the daemon does not know was added after it started.
    let trunk = try #require(report.finding("sip trunk"))
    #expect(trunk.status == .warning)
    #expect(trunk.fix?.contains("restart the daemon") == true)
    #expect(script.connectLog.all.isEmpty, "the daemon's view: nothing is dialled from here")
  }
}
