import CallAlertControl
import CallAlertDaemon
import CallAlertDoctor
import CallAlertPatterns
import CallAlertProtocol
import CallAlertSerial
import CallAlertText
import Foundation
import Testing

/// `callalert doctor` on broken machines: each finding names the problem and its fix.
@Suite("Doctor")
struct DoctorTests {
  static let home = "/home/alice"
  static let environment = ["HOME": home, "XDG_RUNTIME_DIR": "/run/user/1000"]
  static let socket = "/run/user/1000/callalert.sock"
  static let port = "/dev/ttyACM0"
  static let history = home + "/.local/state/callalert/history.sqlite"

  /// A board plugged in at /dev/ttyACM0 (group dialout, 0660), a user not in dialout, no udev rule, no daemon.
  static func brokenMachine() -> FakeSystem {
    var system = FakeSystem()
    system.files[port] = FileFacts(kind: .characterDevice, mode: 0o660, owner: 0, group: 20)
    system.files[home] = FileFacts(kind: .directory, mode: 0o755, owner: 1000, group: 1000)
    system.writable = [home]
    return system
  }

  static let boardPort = SerialPortInfo(
    name: port, transport: .usb, usbVendorID: 0x1209, usbProductID: 0xCA11, serialNumber: "CA-0042")

  static func info(table: TableSummary = .none, versions: ClosedRange<UInt8> = 1...1) -> BoardInfo {
    BoardInfo(
      minVersion: versions.lowerBound, maxVersion: versions.upperBound, sessionVersion: versions.lowerBound,
      firmware: (1, 2, 3), bootNonce: 7, serial: Array("CA-0042".utf8), capabilities: .referenceBoard, table: table)
  }

  static func run(_ system: FakeSystem, _ script: Script, config: String? = nil) async -> DoctorReport {
    await Doctor(system: system, probes: script.probes, environment: environment, version: "test").run(
      configPath: config)
  }

  @Test func anUnreadablePortIsAnErrorWithTheGroupAndTheUdevRuleAsFixes() async throws {
    let report = await Self.run(Self.brokenMachine(), Script(ports: [Self.boardPort]))
    let access = try #require(report.finding("board board: access"))
    #expect(access.status == .error)
    #expect(access.summary.contains("/dev/ttyACM0 (group dialout, mode 0660) is not readable and writable by alice"))
    let fix = try #require(access.fix)
    #expect(fix.contains("70-callalert.rules"))
    #expect(fix.contains("sudo usermod -aG dialout alice"))
    // Not opened, so not probed.
    #expect(report.finding("board board: firmware") == nil)
    #expect(report.finding("udev-rule")?.status == .warning)
    #expect(!report.isHealthy)
  }

  @Test func aUserInTheGroupOfAPortWithoutGroupWriteIsToldAboutTheMode() async throws {
    var system = Self.brokenMachine()
    system.files[Self.port] = FileFacts(kind: .characterDevice, mode: 0o600, owner: 0, group: 20)
    system.user.groups.append(20)
    let report = await Self.run(system, Script(ports: [Self.boardPort]))
    let fix = try #require(report.finding("board board: access")?.fix)
    #expect(fix.contains("you are in group dialout, but its mode 0600"))
  }

  @Test func noDaemonIsAnErrorThatSaysHowToStartIt() async throws {
    let report = await Self.run(Self.brokenMachine(), Script())
    let daemon = try #require(report.finding("daemon"))
    #expect(daemon.status == .error)
    #expect(daemon.summary == "not running: nothing listens on \(Self.socket)")
    #expect(daemon.fix?.contains("systemctl --user enable --now callalert") == true)
    #expect(report.finding("socket")?.status == .skipped)
  }

  @Test func aSocketThatRefusesThisUserSaysWhichGroupToJoin() async throws {
    var system = Self.brokenMachine()
    system.files[Self.socket] = FileFacts(kind: .socket, mode: 0o600, owner: 999, group: 998)
    let report = await Self.run(system, Script(daemon: .failure(.permissionDenied)))
    #expect(report.finding("daemon")?.fix?.contains("socket.mode \"0660\"") == true)
  }

  @Test func aBadConfigIsAnErrorNamingTheLineAndTheFieldAndTheRestStillRuns() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("config.yaml").path
    try "cap: 45s\nregion: XX\n".write(toFile: file, atomically: true, encoding: .utf8)
    let report = await Self.run(Self.brokenMachine(), Script(), config: file)
    let config = try #require(report.finding("config"))
    #expect(config.status == .error)
    #expect(config.summary.contains("\(file):1:6: cap:"))
    #expect(config.summary.contains("2 problem(s)"))
    #expect(config.fix?.contains("edit \(file)") == true)
    #expect(report.finding("daemon") != nil && report.finding("history") != nil)
  }

  @Test func aMissingConfigFileGivenOnTheCommandLineIsAnError() async throws {
    let report = await Self.run(Self.brokenMachine(), Script(), config: "/nowhere/config.yaml")
    #expect(report.finding("config")?.status == .error)
    #expect(report.finding("config")?.summary.contains("does not exist") == true)
  }

  @Test func noBoardPluggedInIsAnError() async throws {
    let report = await Self.run(Self.brokenMachine(), Script(ports: []))
    let found = try #require(report.finding("board board: found"))
    #expect(found.status == .error)
    #expect(found.summary.contains("no CallAlert board (USB 1209:ca11) is plugged in"))
  }

  @Test func aConfiguredPortThatIsNotThereIsAnError() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("config.yaml").path
    try "boards:\n  - name: desk\n    port: /dev/callalert/CA-0099\n".write(
      toFile: file, atomically: true, encoding: .utf8)
    let report = await Self.run(Self.brokenMachine(), Script(), config: file)
    let found = try #require(report.finding("board desk: found"))
    #expect(found.status == .error)
    #expect(found.summary.hasPrefix("/dev/callalert/CA-0099 does not exist"))
  }

  @Test func aHealthyMachineIsHealthy() async throws {
    var system = Self.brokenMachine()
    system.readWrite = [Self.port]
    system.texts["/usr/lib/udev/rules.d/70-callalert.rules"] = try UdevRuleTests.text(
      "packaging/udev/70-callalert.rules")
    system.running = ["ModemManager"]
    system.files[Self.socket] = FileFacts(kind: .socket, mode: 0o600, owner: 1000, group: 1000)
    let report = await Self.run(
      system,
      Script(
        daemon: .success(try Self.status(connected: true)), ports: [Self.boardPort],
        boards: [Self.port: .success(Self.info())]))
    #expect(report.isHealthy, "\(report.text)")
    #expect(report.finding("udev-rule")?.summary.contains("uaccess") == true)
    #expect(report.finding("modemmanager")?.status == .ok)
    #expect(report.finding("board board: firmware")?.summary.hasPrefix("firmware 1.2.3") == true)
    #expect(report.finding("socket")?.status == .ok)
  }

  @Test func modemManagerWithoutTheRuleIsAWarning() async throws {
    var system = Self.brokenMachine()
    system.running = ["ModemManager"]
    let report = await Self.run(system, Script())
    #expect(report.finding("modemmanager")?.status == .warning)
  }

  @Test func aBoardSpeakingAnotherProtocolIsAnError() async throws {
    var system = Self.brokenMachine()
    system.readWrite = [Self.port]
    let report = await Self.run(
      system, Script(ports: [Self.boardPort], boards: [Self.port: .success(Self.info(versions: 2...3))]))
    let firmware = try #require(report.finding("board board: firmware"))
    #expect(firmware.status == .error)
    #expect(firmware.summary.contains("speaks protocol v2-v3; this callalert speaks v1"))
  }

  @Test func aBoardThatDoesNotAnswerIsAnError() async throws {
    var system = Self.brokenMachine()
    system.readWrite = [Self.port]
    let report = await Self.run(system, Script(ports: [Self.boardPort]))
    #expect(report.finding("board board: firmware")?.status == .error)
    #expect(report.finding("board board: firmware")?.fix?.contains("fuser /dev/ttyACM0") == true)
  }

  @Test func aTableOtherThanPatternsFileIsAWarningWithTheFlashCommand() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let config = folder.appendingPathComponent("config.yaml").path
    let patterns = folder.appendingPathComponent("rings.yaml").path
    let patternText = "version: 4\npatterns:\n  - name: home\n    cadence: DE\n"
    try "patterns:\n  file: rings.yaml\n".write(toFile: config, atomically: true, encoding: .utf8)
    var system = Self.brokenMachine()
    system.readWrite = [Self.port]
    system.texts[patterns] = patternText

    let stale = await Self.run(
      system, Script(ports: [Self.boardPort], boards: [Self.port: .success(Self.info())]), config: config)
    let table = try #require(stale.finding("board board: table"))
    #expect(table.status == .warning)
    #expect(table.summary.contains("holds table version 0"))
    #expect(table.fix == "callalert flash \(patterns) --port /dev/ttyACM0")

    let build = try PatternFile.build(text: patternText, file: patterns)
    let header = try PatternTableHeader.read(build.bytes)
    let current = TableSummary(version: header.version, crc: header.crc, size: UInt32(build.bytes.count))
    let fresh = await Self.run(
      system, Script(ports: [Self.boardPort], boards: [Self.port: .success(Self.info(table: current))]),
      config: config)
    #expect(fresh.finding("board board: table")?.status == .ok)
  }

  @Test func anUnwritableHistoryIsAnError() async throws {
    var system = Self.brokenMachine()
    system.writable = []
    let report = await Self.run(system, Script())
    let history = try #require(report.finding("history"))
    #expect(history.status == .error)
    #expect(history.summary.contains("cannot be created: /home/alice is not writable by alice"))
    #expect(history.fix?.contains("history.path") == true)
  }

  @Test func aWorldWritableSocketIsAWarning() async throws {
    var system = Self.brokenMachine()
    system.files[Self.socket] = FileFacts(kind: .socket, mode: 0o666, owner: 1000, group: 1000)
    let report = await Self.run(system, Script(daemon: .success(try Self.status(connected: false))))
    #expect(report.finding("socket")?.status == .warning)
    #expect(report.finding("socket")?.summary.contains("mode 0666") == true)
  }

  @Test func aBoardTheDaemonHoldsIsReportedFromTheDaemonNotProbed() async throws {
    let report = await Self.run(
      Self.brokenMachine(), Script(daemon: .success(try Self.status(connected: true)), ports: [Self.boardPort]))
    #expect(report.finding("board board: found")?.summary == "connected to the daemon, serial CA-0042")
    #expect(report.finding("board board: access")?.status == .skipped)
    #expect(report.finding("board board: firmware")?.summary.hasPrefix("firmware 1.2.3") == true)
  }

  /// A daemon run with a wrong `--port` was rated "ok" while nothing could ring, and the doctor then checked the
  /// config's board (`auto`), all green. Now the daemon's own board, where it looks, and why it failed.
  @Test func aBoardTheDaemonCannotConnectIsAnErrorAndItsPortIsTheOneChecked() async throws {
    var system = Self.brokenMachine()
    system.files["/dev/null"] = FileFacts(kind: .characterDevice, mode: 0o666, owner: 0, group: 0)
    let json =
      #"{"calls":[],"missed":[],"do_not_disturb":{"mode":"off","active":false,"silent":false},"boards":["#
      + #"{"name":"board","connected":false,"link":"connecting","port":"/dev/null","#
      + #""problem":"/dev/null is not a serial port"}]}"#
    let status = try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
    let report = await Self.run(system, Script(daemon: .success(status), ports: [Self.boardPort]))
    let daemon = try #require(report.finding("daemon"))
    #expect(daemon.status == .error)
    #expect(daemon.summary.contains("nothing can ring"))
    let reason = try #require(report.finding("board board: daemon"))
    #expect(reason.status == .error)
    #expect(reason.summary.contains("looking at /dev/null): /dev/null is not a serial port"))
    #expect(report.finding("board board: found")?.summary == "/dev/null")
    #expect(!report.isHealthy)
  }

  @Test func theJSONNamesEveryCheckAndTheVerdict() async throws {
    let report = await Self.run(Self.brokenMachine(), Script())
    let data = try JSONEncoder().encode(report)
    let object = try JSONParser.parse(Array(data))
    #expect(object["healthy"]?.bool == false)
    let checks = try #require(object["checks"]?.elements)
    #expect(checks.map { $0["check"]?.string } == report.findings.map(\.check))
    #expect(checks.first { $0["check"]?.string == "daemon" }?["status"]?.string == "error")
    #expect(try JSONDecoder().decode(DoctorReport.self, from: data) == report)
  }

  static func status(connected: Bool) throws -> StatusReport {
    let board =
      connected
      ? #"{"name":"board","connected":true,"serial":"CA-0042","firmware":"1.2.3","table_version":0}"#
      : #"{"name":"board","connected":false}"#
    let json =
      #"{"calls":[],"missed":[],"do_not_disturb":{"mode":"off","active":false,"silent":false},"boards":[\#(board)]}"#
    return try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
  }
}
