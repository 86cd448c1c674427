import CallAlertEngine
import CallAlertHistory
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import Foundation
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What the `callalert` commands show, run as a user runs them.
@Suite("Command line", .serialized, .timeLimit(.minutes(1)))
struct CommandLineTests {
  /// Runs `callalert` to its end; its standard output, standard error and exit status.
  static func callalert(_ arguments: [String]) async throws -> (output: String, error: String, status: Int32?) {
    let process = try await DaemonProcess(arguments)
    let output = await process.allOutput()
    let exit = await process.exit()
    return (output ?? "", await process.allErrors(), exit?.exitCode)
  }

  /// `history --json` wrote dates as seconds since 2001 (JSONEncoder's default); it now writes ISO 8601 in UTC
  /// with milliseconds, as the control socket's `history` answer does.
  @Test func historyJSONWritesISO8601DatesAsTheSocketDoes() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-h-\(UUID()).sqlite").path
    let history = try CallHistory(path: path)
    let rang = Date(timeIntervalSince1970: 1_795_300_000.25)  // 2026-11-21T22:26:40.250Z
    try history.record(
      .ringing(IncomingCall(id: "c1"), boards: ["desk"], pattern: .slot(0), capMs: 30_000, silent: false), at: rang)
    try history.record(.stopped(callID: "c1", reason: .hangup), at: rang.addingTimeInterval(2))
    let run = try await Self.callalert(["history", "--database", path, "--json"])
    #expect(run.status == 0, "\(run.error)")
    #expect(run.output.contains(#""rang_at" : "2026-11-21T22:26:40.250Z""#), "\(run.output)")
    #expect(run.output.contains(#""ended_at" : "2026-11-21T22:26:42.250Z""#), "\(run.output)")
  }

  /// `flash` reported a bad file as one "Error:" blob with a summary line; it now prints exactly what
  /// `patterns check` prints against the same board, and sends nothing.
  @Test func flashReportsTheSameDiagnosticsAsPatternsCheck() async throws {
    let board = try PseudoTerminalBoard()
    // A slave kept open: the board's end sees no hang-up between the two commands.
    let keepAlive = try PseudoTerminal.holdOpen(slavePath: board.slavePath)
    defer { try? keepAlive.close() }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-bad-\(UUID()).yaml").path
    try "version: 1\npatterns:\n  - name: office\n    cadence: UK\n    volume: 180%\n  - name: x\n    rtttl: bad\n"
      .write(toFile: file, atomically: true, encoding: .utf8)
    let check = try await Self.callalert(["patterns", "check", file, "--port", board.slavePath])
    let flash = try await Self.callalert(["flash", file, "--port", board.slavePath])
    await board.stop()
    #expect(check.status == 1 && flash.status == 1)
    #expect(check.error.contains("\(file):5:13: error:"), "\(check.error)")
    #expect(flash.error == check.error, "flash:\n\(flash.error)\ncheck:\n\(check.error)")
  }
}
