import CallAlertTestSupport
import Foundation
import Testing

/// The page's *Save and flash*: the editor holds the config's pattern file; a text that does not build, or
/// lacks a name the config uses, is refused with its errors and writes nothing; a good one is written and put
/// on the board, each board's progress on the page until it is verified.
@Suite struct PatternFlashPageTests {
  static let first = "version: 1\npatterns:\n  - name: office\n    cadence: UK\n"
  static let second =
    "# kept as typed, comments too\nversion: 2\npatterns:\n  - name: office\n    cadence: US\n  - name: night\n"
    + "    cadence: UK\n    volume: 30%\n"

  @Test func saveAndFlashPutsTheFileOnTheBoardWithItsProgress() async throws {
    let rig = try await HTTPDaemonRig.start(extraConfig: "patterns:\n  file: patterns.yaml\n  default: office") {
      try Self.first.write(to: $0.appendingPathComponent("patterns.yaml"), atomically: true, encoding: .utf8)
    }
    let file = rig.directory.appendingPathComponent("patterns.yaml")
    let browser = PageBrowser(port: rig.port)
    let page = try await browser.send(.GET, "/page/patterns")
    let token = try #require(page.formToken)
    #expect(page.body.contains("Edit the pattern file") && page.body.contains(#"id="pattern-flash""#), "\(page.body)")
    #expect(page.body.contains("name: office"), "the editor holds the file as it is")

    // Lacks the name the config uses: refused, nothing written.
    let lacking = "version: 3\npatterns:\n  - name: night\n    cadence: UK\n"
    let refused = try await browser.press("/page/actions/flash", [("text", lacking)], token: token)
    #expect(refused.status == 400 && refused.body.contains("office"), "\(refused.body)")
    let broken = try await browser.press("/page/actions/flash", [("text", "version: 1\npatterns: [\n")], token: token)
    #expect(broken.status == 400 && broken.body.contains("Not saved, nothing flashed"), "\(broken.body)")
    #expect(try String(contentsOf: file, encoding: .utf8) == Self.first)

    let flashed = try await browser.press("/page/actions/flash", [("text", Self.second)], token: token)
    #expect(flashed.status == 303 && flashed.location == "/page/patterns#flash", "\(flashed.status) \(flashed.body)")
    #expect(try String(contentsOf: file, encoding: .utf8) == Self.second, "written as typed")
    let done = try await answer(within: 20, every: .milliseconds(100)) {
      try await browser.send(.GET, "/page/patterns/flash.part").body
    } until: {
      $0.contains("data-active=\"false\"")
    }
    #expect(done.contains("flashed and verified: table v2 active"), "\(done)")
    #expect(done.contains("100 %"))
    let status = try await rig.send(.GET, "/v1/status").body
    #expect(status.contains(#""table_version":2"#), "\(status)")
    try await browser.shutdown()
    try await rig.stop()
  }
}
