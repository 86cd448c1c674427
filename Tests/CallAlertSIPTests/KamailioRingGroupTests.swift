import CallAlertTestSupport
import Foundation
import Synchronization
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
    let proxyPort = LoopbackPorts.take()
    let deskPort = LoopbackPorts.take()
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("kamailio-\(UUID().uuidString).cfg")
    try String(contentsOf: Self.configTemplate, encoding: .utf8)
      .replacingOccurrences(of: "LISTEN_PORT", with: "\(proxyPort)")
      .replacingOccurrences(of: "DESK_PORT", with: "\(deskPort)")
      .write(to: config, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: config) }
    let proxy = try await Kamailio(config: config)
    defer { proxy.stop() }

    var rig = try await SIPRig(cap: "10s", user: "ring", account: "registrar: 127.0.0.1:\(proxyPort)")
    #expect(await rig.log.waitFor("registered as sip:ring@127.0.0.1"))

    let desk = try await SIPpProcess(
      scenario: "desk-phone-answers.xml", arguments: ["-p", "\(deskPort)", "-m", "1", "-d", "800", "-timeout", "20s"])
    let caller = try await SIPpProcess(
      scenario: "caller-through-proxy.xml",
      arguments: [
        "-s", "ring", "-p", "\(LoopbackPorts.take())", "-m", "1", "-d", "200", "-timeout", "20s",
        "127.0.0.1:\(proxyPort)",
      ])
    let id = try await rig.ringingCall()
    #expect(await rig.boardSounds(), "\(rig.log.all.suffix(40)) events: \(rig.lines.suffix(10))")
    let ringing = try #require(rig.lines.last)
    #expect(ringing.contains(#""caller":"+4940555666""#) && ringing.contains(#""name":"Bob""#), "\(ringing)")
    #expect(await rig.event(#""event":"stopped""#, #""reason":"answered""#, id) != nil)
    #expect(await rig.boardFallsSilent(), "\(rig.log.all.suffix(40))")
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
    private let log = Log()
    private let watchdog: Task<Void, Never>

    init(config: URL) async throws {
      pidFile = config.deletingPathExtension().path + ".pid"
      let child = try await SpawnedProcess(
        "/usr/bin/setsid",
        [
          "/usr/sbin/kamailio", "-f", config.path, "-P", pidFile, "-DD", "-E", "-w",
          FileManager.default.temporaryDirectory.path,
        ])
      let (lines, log) = (child.lines, log)
      Task { for await line in lines { log.lines.withLock { $0.append(line) } } }
      let pidFile = pidFile
      watchdog = Task {
        guard (try? await Task.sleep(for: .seconds(55))) != nil else { return }
        Kamailio.kill(pidFile: pidFile)
      }
    }

    /// What it logged.
    var output: String { log.lines.withLock { $0.joined(separator: "\n") } }

    /// Kills its process group and removes its pid file.
    func stop() {
      watchdog.cancel()
      Self.kill(pidFile: pidFile)
      try? FileManager.default.removeItem(atPath: pidFile)
    }

    /// What it logged, appended by the task that reads it.
    private final class Log: Sendable {
      let lines = Mutex<[String]>([])
    }

    private static func kill(pidFile: String) {
      guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
        let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1
      else { return }
      _ = Glibc.kill(-pid, SIGKILL)
    }
  }
}
