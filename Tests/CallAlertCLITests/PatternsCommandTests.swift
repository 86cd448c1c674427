import ArgumentParser
import CallAlertPatterns
import Foundation
import Testing

@testable import callalert

/// `callalert patterns compile`, `decompile` and `builtins`, which PATTERNS.md listed and the tool lacked.
@Suite struct PatternsCommandTests {
  @Test func aFileCompilesToATableThatDecompilesToAFileThatCompilesToTheSameBytes() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-patterns-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let source = folder.appendingPathComponent("rings.yaml").path
    try "version: 1\npatterns:\n  - name: office\n    cadence: UK\n  - name: shake\n    vibration: android_pulse\n"
      .write(toFile: source, atomically: true, encoding: .utf8)
    let table = folder.appendingPathComponent("rings.bin").path
    try await CallAlertCommand.Patterns.Compile.parse([source, "-o", table]).run()
    let bytes = try #require(FileManager.default.contents(atPath: table))
    #expect(bytes.count > 0)
    let decompiled = folder.appendingPathComponent("back.yaml").path
    try await CallAlertCommand.Patterns.Decompile.parse([table, "-o", decompiled]).run()
    let again = folder.appendingPathComponent("again.bin").path
    try await CallAlertCommand.Patterns.Compile.parse([decompiled, "-o", again]).run()
    #expect(FileManager.default.contents(atPath: again) == bytes)
  }

  @Test func decompilingAFileThatIsNoTableSaysSo() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-\(UUID()).txt").path
    try "hello\n".write(toFile: path, atomically: true, encoding: .utf8)
    await #expect {
      try await CallAlertCommand.Patterns.Decompile.parse([path]).run()
    } throws: { error in
      "\(error)".contains("not a CallAlert pattern table")
    }
  }

  @Test func builtinsParses() throws {
    _ = try CallAlertCommand.Patterns.Builtins.parse([])
    #expect(BuiltInPatterns.names.contains("steady_vibration"))
  }
}
