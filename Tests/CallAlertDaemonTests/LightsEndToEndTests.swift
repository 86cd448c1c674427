import CallAlertDaemon
import CallAlertLights
import CallAlertSimulation
import CallAlertTestSupport
import Clocks
import Foundation
import Synchronization
import Testing

/// `callalert run --simulate` with a virtual light of each kind in the config: a call on the control socket
/// rings every one of them, the hangup turns them off, a call missed at its cap leaves the missed-call
/// indicator on them, and each timeline file holds its reports as JSON lines. On a test clock, the daemon and
/// its lights alike (``DaemonRig``): the cap passes in virtual time.
@Suite("Lights end to end", .serialized, .timeLimit(.minutes(1)))
struct LightsEndToEndTests {
  @Test func aCallRingsAVirtualLightOfEachKindAndTheHangupTurnsThemOff() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-lights-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let socket = directory.appendingPathComponent("control.sock").path
    let timeline = { (kind: LightKind) in directory.appendingPathComponent("\(kind.rawValue).jsonl").path }
    let boards = LightKind.allCases.map { kind in
      """
        - name: \(kind.rawValue)-light
          kind: \(kind.rawValue)
          color: blue
          timeline: \(timeline(kind))
      """
    }.joined(separator: "\n")
    let config = directory.appendingPathComponent("config.yaml").path
    try """
    cap: 2s
    boards:
    \(boards)
    socket:
      path: \(socket)
    history:
      path: \(directory.appendingPathComponent("history.sqlite").path)
    """.write(toFile: config, atomically: true, encoding: .utf8)

    let daemon = try await DaemonRig.onATestClock(
      options: DaemonOptions(configPath: config, simulate: true, readStandardInput: false))
    let lights = Mutex(daemon.lights)
    #expect(lights.withLock { $0.count } == LightKind.allCases.count)

    let shown = { @Sendable (light: VirtualLight<TestClock<Duration>>) in
      light.received.filter { !$0.meaning.hasPrefix("server tickle") && !$0.meaning.hasPrefix("keepalive") }
    }
    let isDark = { @Sendable (meaning: String?) in meaning == "off" || meaning == "dark, silent" }
    // Blue, as the config says: #0000ff, or 0/0/100 % on a Kuando.
    let isBlue = { @Sendable (meaning: String) in
      meaning.contains("#0000ff") || meaning.contains("red 0% green 0% blue 100%")
    }
    // The missed-call indicator's orange, #ff6000: 100/37/0 % on a Kuando.
    let isOrange = { @Sendable (meaning: String) in
      meaning.contains("#ff6000") || meaning.contains("red 100% green 37% blue 0%")
    }
    let count = LightKind.allCases.count

    // A call rings every light in its colour; at the hangup, each goes dark.
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"c1","caller":"+14155550101"}"#, path: socket)
    let litCount = { @Sendable in
      lights.withLock { $0.values.filter { shown($0).contains { isBlue($0.meaning) } }.count }
    }
    _ = await daemon.advance(within: .seconds(20)) { litCount() == count }
    let lit = litCount()
    #expect(lit == count, "every light shows the ring")
    _ = try await ControlSocketClient.request(#"{"type":"hangup","id":"c1"}"#, path: socket)
    let darkCount = { @Sendable in lights.withLock { $0.values.filter { isDark(shown($0).last?.meaning) }.count } }
    _ = await daemon.advance(within: .seconds(20)) { darkCount() == count }
    let dark = darkCount()
    #expect(dark == count, "every light is dark after the hangup")

    // A call that rings to its cap (2 s here) is missed: the lights show the missed-call indicator.
    let before = lights.withLock { $0.mapValues { $0.received.count } }
    _ = try await ControlSocketClient.request(#"{"type":"call","id":"c2","caller":"+14155550102"}"#, path: socket)
    let missedCount = { @Sendable in
      lights.withLock { lights in
        lights.filter { name, light in
          light.received.dropFirst(before[name] ?? 0).contains { isOrange($0.meaning) }
        }.count
      }
    }
    _ = await daemon.advance(within: .seconds(20)) { missedCount() == count }
    let missed = missedCount()
    #expect(missed == count, "every light shows the missed-call indicator")

    // `status` names each light's device: what the light calls itself, not a board's serial and firmware.
    let status = try await ControlSocketClient.request(#"{"type":"status"}"#, path: socket)
    for kind in LightKind.allCases {
      #expect(status.contains(#""device":"virtual \#(kind.displayName) '\#(kind.rawValue)-light'""#), "\(status)")
    }
    #expect(!status.contains(#""serial""#))

    try await daemon.shutDown()
    for kind in LightKind.allCases {
      let lines = try String(contentsOfFile: timeline(kind), encoding: .utf8).split(separator: "\n")
      #expect(lines.count >= 3, "\(kind): \(lines.count) lines")
      for line in lines {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["t_ms"] is Int && object?["hex"] is String && object?["meaning"] is String)
        #expect(object?["report_id"] as? Int == (kind == .blink1 ? 1 : 0))
      }
    }
  }
}
