import CallAlertEngine
import CallAlertInputs
import CallAlertTestSupport
import CallAlertValues
import Foundation
import Logging
import Synchronization
import Testing

@testable import CallAlertDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// A pipe whose ends are close-on-exec from their creation: a FIFO opened with O_CLOEXEC, as atomic as
/// pipe2(O_CLOEXEC), which Glibc's module map does not export. The same 64 KiB buffer as a pipe.
func closeOnExecPipe() -> [Int32]? {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-fifo-\(UUID().uuidString)").path
  guard mkfifo(path, 0o600) == 0 else { return nil }
  defer { unlink(path) }
  let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)  // without O_NONBLOCK it waits for a writer
  guard reader >= 0 else { return nil }
  let writer = open(path, O_WRONLY | O_CLOEXEC)
  guard writer >= 0 else {
    close(reader)
    return nil
  }
  return [reader, writer]
}

/// Standard output written by the daemon: a reader that stalls costs dropped lines, counted and logged; a
/// reader that goes away costs one log line; neither blocks the caller nor ends the process.
@Suite("Event printer", .timeLimit(.minutes(1)))
struct EventPrinterTests {
  /// Nobody reads the pipe: once it and the queue are full, lines are dropped, counted and logged (the first
  /// drop at once, then rate-limited), and `print` never blocks. Before, the events were written with a
  /// blocking write on a cooperative thread, or dropped silently by the subscription's buffer.
  @Test func linesForAStalledReaderAreDroppedCountedAndLogged() async throws {
    var ends: [Int32] = [0, 0]
    // Close-on-exec from the start: a child another test spawns meanwhile must not inherit, and hold open, the
    // read end. With pipe() and then fcntl, a fork in between once did, and the write never failed.
    ends = try #require(closeOnExecPipe())
    defer {
      close(ends[0])
    }
    let log = CapturedLog()
    let printer = EventPrinter(
      descriptor: ends[1], name: "test pipe", capacity: 4, reportInterval: .seconds(3_600), logger: log.logger,
      now: { .zero })
    let line = String(repeating: "x", count: 1_023)
    // The pipe holds 64 KiB (64 lines), the writer has at most one batch (4 lines) in hand and the queue 4:
    // of 200 lines, at least 200 - 64 - 4 - 4 are dropped, however the threads interleave.
    for _ in 0..<200 { printer.print(line) }
    #expect(printer.dropped >= 200 - 64 - 8, "\(printer.dropped) dropped")
    let warnings = log.all.filter { $0.contains("test pipe is not being read") }
    #expect(warnings.count == 1, "rate-limited to one line per interval: \(warnings)")
    // The reader goes away: the next write fails, once, and the printer ends. The writer may have been blocked
    // on the full pipe, or (when it ran only after the 200 lines were queued, the pipe taking its 4 lines and
    // everything else dropped) idle with nothing to write: one more line makes it write, whichever it was.
    close(ends[0])
    ends[0] = open("/dev/null", O_RDONLY)
    // A child that another test spawns holds a copy of every descriptor from its clone to its exec, the read
    // end too (close-on-exec closes it only at the exec): a write in that moment still finds a reader and
    // succeeds (one quiet hunt's run in 20). The next one fails: lines are printed until one does, bounded.
    let deadline = ContinuousClock.now + .seconds(10)
    while !printer.failed, ContinuousClock.now < deadline {
      printer.print(line)
      try await Task.sleep(for: .milliseconds(5))
    }
    printer.finish(timeout: .seconds(10))
    #expect(printer.failed)
    close(ends[1])
  }

  /// A reader that goes away (`| head -1`): one log line naming the failure, nothing more, whatever follows.
  @Test func aClosedReaderIsLoggedOnceAndSurvived() async throws {
    var ends: [Int32] = [0, 0]
    // Close-on-exec from the start: a child another test spawns meanwhile must not inherit, and hold open, the
    // read end. With pipe() and then fcntl, a fork in between once did, and the write never failed.
    ends = try #require(closeOnExecPipe())
    close(ends[0])
    let log = CapturedLog()
    let printer = EventPrinter(descriptor: ends[1], name: "test pipe", logger: log.logger)
    for index in 0..<100 { printer.print("line \(index)") }
    // A write while another test's child still holds the read end (between its clone and its exec) succeeds:
    // more lines, bounded, until one fails.
    let deadline = ContinuousClock.now + .seconds(10)
    while !printer.failed, ContinuousClock.now < deadline {
      printer.print("one more")
      try await Task.sleep(for: .milliseconds(5))
    }
    printer.finish(timeout: .seconds(10))
    close(ends[1])
    #expect(printer.failed)
    let failures = log.all.filter { $0.contains("test pipe failed") }
    #expect(failures.count == 1 && failures[0].contains("Broken pipe"), "\(log.all)")
  }

  /// The rate limit, in virtual time.
  @Test func dropReportsComeAtOnceThenAtMostOncePerIntervalThenOnCatchingUp() {
    var report = DropReport(interval: .seconds(10))
    #expect(report.dropped(now: .seconds(0)) == 1)
    #expect(report.dropped(now: .seconds(1)) == nil)
    #expect(report.dropped(now: .seconds(9)) == nil)
    #expect(report.dropped(now: .seconds(10)) == 3)
    #expect(report.dropped(now: .seconds(11)) == nil)
    #expect(report.caughtUp(now: .seconds(12)) == 1)
    #expect(report.caughtUp(now: .seconds(13)) == nil)
    #expect(report.total == 5)
  }
}

/// What a reload logs as changed.
@Suite struct ConfigurationChangeTests {
  @Test func aChangeIsNamedByTheConfigFilesNames() throws {
    let old = try ConfigurationFile.parse(text: "cap: 20s\nboards:\n  - name: desk\n", file: "a.yaml")
    var new = try ConfigurationFile.parse(text: "cap: 30s\nregion: DE\nboards:\n  - name: desk\n", file: "a.yaml")
    #expect(ConfigurationChange(from: old, to: old).description == "nothing changed")
    #expect(ConfigurationChange(from: old, to: new).description == "changed cap, region")
    new.socketPath = "/elsewhere.sock"
    new.engine.boards.append(AlertBoard(name: "bed"))
    #expect(
      ConfigurationChange(from: old, to: new).description
        == "changed cap, boards, region; socket.path, the list of boards take(s) effect at the next start")
  }

  /// What is set up once at start is never reported as applied: a reload that says "changed mqtt" while the
  /// old broker connection goes on would leave the user believing the new one is in use.
  @Test func whatIsSetUpAtStartIsReportedAsTakingEffectAtTheNextStart() throws {
    let old = try ConfigurationFile.parse(
      text: "cap: 20s\nboards:\n  - name: desk\n    port: /dev/ttyACM0\n", file: "a.yaml")
    let new = try ConfigurationFile.parse(
      text: """
        cap: 25s
        boards:
          - name: desk
            port: /dev/ttyACM1
        history:
          keep_days: 30
        mqtt:
          broker: mqtt://127.0.0.1
          node_id: upstairs
        sip:
          accounts:
            - name: pbx
              registrar: pbx
              user: "290"
        sources:
          - name: box
            kind: fritzbox
            host: fritz.box
        """, file: "b.yaml")
    let change = ConfigurationChange(from: old, to: new)
    #expect(change.applied == ["cap", "boards"])
    #expect(
      Set(change.needRestart) == ["history.keep_days", "mqtt", "sip", "sources", "boards.desk.port"],
      "\(change)")
    #expect(change.description.hasPrefix("changed cap, boards; "))
  }
}
