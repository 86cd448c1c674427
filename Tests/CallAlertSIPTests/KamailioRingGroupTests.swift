import CallAlertTestSupport
import Foundation
import Testing

/// With a second real peer: kamailio as the registrar and a forking proxy (Tools/sip/kamailio-ring-group.cfg),
/// ringing a group of the extension and a desk phone (SIPp). The extension registers to kamailio; a caller
/// (SIPp) calls the group through it; the desk phone answers, and kamailio cancels the extension's branch with
/// `Reason: SIP;cause=200`. The board rang and stopped, and the history says the call was answered elsewhere.
@Suite(
  "SIP ring group through kamailio, end to end", .serialized, .timeLimit(.minutes(1)),
  .enabled(
    if: SIPpProcess.isInstalled && FileManager.default.isExecutableFile(atPath: "/usr/sbin/kamailio"),
    "SIPp or kamailio is not installed (Tools/scripts/install-deps.sh installs them)"))
struct KamailioRingGroupTests {
  static let configTemplate = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Tools/sip/kamailio-ring-group.cfg").standardized

  @Test func theDeskPhoneAnswersAndTheExtensionsRingStopsAsAnsweredElsewhere() async throws {
    let proxyPort = SIPpProcess.freeUDPPort()
    let deskPort = SIPpProcess.freeUDPPort()
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("kamailio-\(UUID().uuidString).cfg")
    try String(contentsOf: Self.configTemplate, encoding: .utf8)
      .replacingOccurrences(of: "LISTEN_PORT", with: "\(proxyPort)")
      .replacingOccurrences(of: "DESK_PORT", with: "\(deskPort)")
      .write(to: config, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: config) }
    let proxy = try Kamailio(config: config)
    defer { proxy.stop() }

    var rig = try await SIPRig(cap: "10s", user: "ring", account: "registrar: 127.0.0.1:\(proxyPort)")
    #expect(await rig.log.waitFor("registered as sip:ring@127.0.0.1"))

    let desk = try SIPpProcess(
      scenario: "desk-phone-answers.xml", arguments: ["-p", "\(deskPort)", "-m", "1", "-d", "800", "-timeout", "20s"])
    let caller = try SIPpProcess(
      scenario: "caller-through-proxy.xml",
      arguments: [
        "-s", "ring", "-p", "\(SIPpProcess.freeUDPPort())", "-m", "1", "-d", "200", "-timeout", "20s",
        "127.0.0.1:\(proxyPort)",
      ])
    let id = try await rig.ringingCall()
    #expect(await rig.boardSounds())
    let ringing = try #require(rig.lines.last)
    #expect(ringing.contains(#""caller":"+4940555666""#) && ringing.contains(#""name":"Bob""#), "\(ringing)")
    #expect(await rig.event(#""event":"stopped""#, #""reason":"answered""#, id) != nil)
    #expect(await rig.boardFallsSilent())
    let called = await caller.result()
    #expect(called.status == 0 && !called.killed, "\(called.output)")
    if called.status != 0 { print(proxy.output) }
    let answered = await desk.result()
    #expect(answered.status == 0 && !answered.killed, "\(answered.output)")
    #expect(try await rig.history() == [id: "answered"])
    try await rig.stop()
  }

  /// kamailio in a session of its own (`setsid`), so that neither it nor its children are this process's
  /// children, and one kill of its process group (its pid, from `-P`) ends them all. Its start is checked by
  /// the registration the test waits for; it is killed when the test ends, at the latest by a watchdog.
  final class Kamailio: Sendable {
    let pidFile: String
    let logFile: String
    private let watchdog: Task<Void, Never>

    init(config: URL) throws {
      let base = config.deletingPathExtension().path
      pidFile = base + ".pid"
      logFile = base + ".log"
      _ = FileManager.default.createFile(atPath: logFile, contents: nil)
      let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
      process.arguments = [
        "/usr/sbin/kamailio", "-f", config.path, "-P", pidFile, "-DD", "-E", "-w",
        FileManager.default.temporaryDirectory.path,
      ]
      process.standardInput = FileHandle.nullDevice
      process.standardOutput = log
      process.standardError = log
      try process.run()
      try? log.close()
      let pidFile = pidFile
      watchdog = Task {
        guard (try? await Task.sleep(for: .seconds(55))) != nil else { return }
        Kamailio.kill(pidFile: pidFile)
      }
    }

    /// What it logged.
    var output: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// Kills its process group and removes its files.
    func stop() {
      watchdog.cancel()
      Self.kill(pidFile: pidFile)
      try? FileManager.default.removeItem(atPath: pidFile)
      try? FileManager.default.removeItem(atPath: logFile)
    }

    private static func kill(pidFile: String) {
      guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
        let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1
      else { return }
      _ = Glibc.kill(-pid, SIGKILL)
    }
  }
}
