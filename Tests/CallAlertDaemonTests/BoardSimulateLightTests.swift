import CallAlertTestSupport
import Foundation
import Testing

/// `callalert board simulate --kind`: a virtual light rung to its cap, its reports in the timeline file.
@Suite("Board simulate a light", .timeLimit(.minutes(1)))
struct BoardSimulateLightTests {
  @Test func aVirtualKuandoRingsToItsCapAndItsTimelineEndsDarkAndSilent() async throws {
    let timeline = FileManager.default.temporaryDirectory.appendingPathComponent("kuando-\(UUID()).jsonl").path
    defer { try? FileManager.default.removeItem(atPath: timeline) }
    let child = try await DaemonProcess(
      [
        "board", "simulate", "--kind", "kuando", "--ringtone", "buzz", "--volume", "7", "--seconds", "1",
        "--timeline", timeline,
      ])
    let exit = try #require(await child.exit(), "board simulate did not end at its cap")
    let errors = await child.allErrors()
    #expect(exit.exitCode == 0, "\(errors)")
    let lines = try String(contentsOfFile: timeline, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines.first?.contains(#""meaning":"show red 100% green 0% blue 0%, ring buzz at volume 7""#) == true)
    #expect(lines.dropFirst().first?.contains(#""meaning":"keepalive: dark unless another report within 3 s""#) == true)
    #expect(lines.last?.contains(#""meaning":"dark, silent""#) == true)
    #expect(lines.allSatisfy { $0.hasPrefix(#"{"t_ms":"#) && $0.contains(#""report_id":0"#) })
  }
}
