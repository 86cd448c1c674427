import CallAlertTestSupport
import Foundation
import NIOHTTP1
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
    let rig = try await HTTPDaemonRig.start(
      extraConfig: "patterns:\n  file: patterns.yaml\n  default: office", linkOnAStillClock: true
    ) {
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

  /// A board that rings is not flashed until it stops: the page says so, then shows the flash when it ends.
  @Test func aRingingBoardIsFlashedOnceItStops() async throws {
    let rig = try await HTTPDaemonRig.start(extraConfig: "patterns:\n  file: patterns.yaml", linkOnAStillClock: true) {
      try Self.first.write(to: $0.appendingPathComponent("patterns.yaml"), atomically: true, encoding: .utf8)
    }
    let browser = PageBrowser(port: rig.port)
    let token = try #require(try await browser.send(.GET, "/page/patterns").formToken)
    // The board has the first table before the call (flashed at connect).
    let first = try await answer(within: 10, every: .milliseconds(100)) {
      try await rig.send(.GET, "/v1/status").body
    } until: {
      $0.contains(#""table_version":1"#)
    }
    #expect(first.contains(#""table_version":1"#), "\(first)")
    let call = try await rig.send(.POST, "/v1/calls", body: #"{"id":"f1","name":"Flash"}"#)
    #expect(call.status == 200, "\(call.body)")
    _ = try await answer(within: 10, every: .milliseconds(50)) {
      try await rig.send(.GET, "/v1/status").body
    } until: {
      $0.contains(#""playing_call":"f1""#)
    }
    let flashed = try await browser.press("/page/actions/flash", [("text", Self.second)], token: token)
    #expect(flashed.status == 303)
    let waiting = try await answer(within: 10, every: .milliseconds(100)) {
      try await browser.send(.GET, "/page/patterns/flash.part").body
    } until: {
      $0.contains("ringing: flashed as soon as it stops")
    }
    #expect(waiting.contains("ringing: flashed as soon as it stops"), "\(waiting)")
    // One flash at a time: a second save while the board waits is refused, and the file stays the first save's.
    let again = try await browser.press("/page/actions/flash", [("text", Self.first)], token: token)
    #expect(again.status == 400 && again.body.contains("a flash is still going on"), "\(again.body)")
    let file = rig.directory.appendingPathComponent("patterns.yaml")
    #expect(try String(contentsOf: file, encoding: .utf8) == Self.second)
    // A stranger's form without this session's token changes nothing either.
    let forged = try await browser.press("/page/actions/flash", [("text", Self.first)], token: "forged")
    #expect(forged.status == 403, "\(forged.status)")
    #expect(try String(contentsOf: file, encoding: .utf8) == Self.second)
    #expect(try await rig.send(.POST, "/v1/calls/f1/hangup").status == 200)
    let done = try await answer(within: 20, every: .milliseconds(100)) {
      try await browser.send(.GET, "/page/patterns/flash.part").body
    } until: {
      $0.contains("table v2 active")
    }
    #expect(done.contains("flashed and verified: table v2 active"), "\(done)")
    try await browser.shutdown()
    try await rig.stop()
  }
}
