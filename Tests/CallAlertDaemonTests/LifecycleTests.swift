import CallAlertControl
import CallAlertHistory
import CallAlertProtocol
import CallAlertSimulation
import CallAlertTestSupport
import CallAlertValues
import CallAlertVirtualBoard
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import CallAlertDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's lifecycle as an operator meets it, with the built binary as a child process: signals, a
/// stdout reader that goes away, a second daemon.
@Suite("Daemon lifecycle", .serialized, .timeLimit(.minutes(1)))
struct LifecycleTests {
  /// A folder with a config, a socket and a history for one daemon.
  struct Folder {
    let directory: URL
    var config: String { directory.appendingPathComponent("config.yaml").path }
    var socket: String { directory.appendingPathComponent("control.sock").path }
    var history: String { directory.appendingPathComponent("history.sqlite").path }

    init(_ yaml: String = "cap: 20s\nboards:\n  - name: desk\n") throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "callalert-life-\(UUID().uuidString.prefix(8))")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try write(yaml)
    }

    func write(_ yaml: String) throws { try yaml.write(toFile: config, atomically: true, encoding: .utf8) }

    /// `callalert run` on this folder's config, socket and history.
    func run(_ extra: [String] = ["--simulate"]) async throws -> DaemonProcess {
      try await DaemonProcess(
        ["run", "--no-stdin", "--config", config, "--socket", socket, "--history", history] + extra,
        environment: ["XDG_STATE_HOME": directory.path, "XDG_RUNTIME_DIR": directory.path])
    }

    func request(_ line: String) async throws -> String { try await ControlSocketClient.request(line, path: socket) }
  }

  /// `callalert run | head -1`: the reader of standard output exits after one line. Before, the next event
  /// killed the daemon (SIGPIPE; with SIGPIPE ignored, the `try!` in FileHandle.write). Now the failure is
  /// logged once and the daemon goes on ringing.
  @Test func aStdoutReaderThatExitsLeavesTheDaemonRinging() async throws {
    let folder = try Folder()
    let daemon = try await folder.run()
    #expect(await daemon.waitForError(containing: "callalert daemon:"), "\(daemon.standardError)")
    #expect(Answer.of(try await folder.request(#"{"type":"call","id":"c1"}"#))?.isSuccess == true)
    let first = await daemon.firstOutputLine()
    #expect(first?.contains(#""event":"ringing""#) == true, "\(first ?? "no line")")
    try daemon.closeOutput()  // `head -1` exits

    // More events: the hangup's, a new call's. The daemon must be there to take them and ring.
    #expect(Answer.of(try await folder.request(#"{"type":"hangup","id":"c1"}"#))?.isSuccess == true)
    #expect(Answer.of(try await folder.request(#"{"type":"call","id":"c2"}"#))?.isSuccess == true)
    #expect(await daemon.waitForError(containing: "standard output failed"), "\(daemon.standardError)")
    // The simulated board may still be connecting on a loaded machine: c2 rings on it once it is there.
    let status = try await answer(within: 20) {
      try await folder.request(#"{"type":"status"}"#)
    } until: {
      $0.contains(#""id":"c2""#) && $0.contains(#""playing_on":["desk"]"#)
    }
    #expect(status.contains(#""id":"c2""#) && status.contains(#""playing_on":["desk"]"#), "\(status)")
    #expect(daemon.standardError.components(separatedBy: "standard output failed").count == 2, "logged once")

    daemon.signal(SIGTERM)
    let exit = await daemon.exit()
    #expect(exit?.exitCode == 0, "\(String(describing: exit)): \(daemon.standardError)")
  }

  /// Requests on standard input are answered, each with its line, on standard error (standard output carries
  /// the events): a `status` typed there got no answer at all, only failures did.
  @Test func everyStandardInputRequestIsAnsweredOnStandardError() async throws {
    let folder = try Folder()
    let daemon = try await DaemonProcess(
      ["run", "--simulate", "--config", folder.config, "--socket", folder.socket, "--history", folder.history],
      environment: ["XDG_STATE_HOME": folder.directory.path, "XDG_RUNTIME_DIR": folder.directory.path],
      input: "{\"type\":\"status\"}\n{\"type\":\"call\",\"id\":\"s1\"}\n{\"type\":\"hangup\"}\n")
    #expect(await daemon.waitForError(containing: #"{"ok":true,"status":"#), "\(daemon.standardError)")
    // "ringing", or "waiting" while the simulated board still connects.
    #expect(await daemon.waitForError(containing: #""id":"s1","#), "\(daemon.standardError)")
    #expect(await daemon.waitForError(containing: "<stdin>:3:"), "\(daemon.standardError)")
    daemon.signal(SIGTERM)
    _ = await daemon.exit()
  }

  /// SIGHUP used to end the daemon. Now it reloads the config as a `reload` request does: a good file is
  /// applied with a log line naming what changed and the call goes on ringing; a bad one is refused with its
  /// place and the running configuration stays.
  @Test func sighupReloadsAGoodConfigAndRefusesABadOne() async throws {
    let folder = try Folder()
    let daemon = try await folder.run()
    #expect(await daemon.waitForError(containing: "callalert daemon:"), "\(daemon.standardError)")
    #expect(Answer.of(try await folder.request(#"{"type":"call","id":"c1"}"#))?.isSuccess == true)

    try folder.write("cap: 25s\nboards:\n  - name: desk\n")
    daemon.signal(SIGHUP)
    #expect(await daemon.waitForError(containing: "config reloaded (SIGHUP): changed cap"), "\(daemon.standardError)")
    // The simulated board may still be connecting on a loaded machine: c1 rings on it once it is there.
    var status = try await answer(within: 20) {
      try await folder.request(#"{"type":"status"}"#)
    } until: {
      $0.contains(#""id":"c1""#) && $0.contains(#""playing_on":["desk"]"#)
    }
    #expect(status.contains(#""id":"c1""#) && status.contains(#""playing_on":["desk"]"#), "\(status)")

    try folder.write("cap: banana\nboards:\n  - name: desk\n")
    daemon.signal(SIGHUP)
    #expect(await daemon.waitForError(containing: "config reload (SIGHUP) refused"), "\(daemon.standardError)")
    #expect(daemon.standardError.contains("config.yaml:1:6"), "\(daemon.standardError)")
    // The control socket's reload takes the same path and gives the same answer.
    let reload = try await folder.request(#"{"type":"reload"}"#)
    #expect(Answer.of(reload)?.isSuccess == false && reload.contains("config.yaml:1:6"), "\(reload)")
    status = try await folder.request(#"{"type":"status"}"#)
    #expect(status.contains(#""id":"c1""#) && status.contains(#""playing_on":["desk"]"#), "\(status)")

    daemon.signal(SIGTERM)
    let exit = await daemon.exit()
    #expect(exit?.exitCode == 0, "\(String(describing: exit)): \(daemon.standardError)")
  }

  /// SIGTERM silences the board at once (not when its lease lapses, 2 to 3 s later) and the call that was
  /// ringing is closed in the history as interrupted, at the time it stopped: it used to stay `ringing` until
  /// the next start, which closed it at that start's time.
  @Test(arguments: [SIGTERM, SIGINT])
  func aStopSignalSilencesTheBoardAndClosesTheCallAsInterrupted(signal: Int32) async throws {
    let board = try PseudoTerminalBoard()
    let folder = try Folder("cap: 20s\nboards:\n  - name: desk\n    port: \(board.slavePath)\n")
    let daemon = try await folder.run([])
    #expect(await daemon.waitForError(containing: "board desk connected"), "\(daemon.standardError)")
    #expect(Answer.of(try await folder.request(#"{"type":"call","id":"c1"}"#))?.isSuccess == true)
    #expect(await board.waitUntil(playing: true))

    let signalled = Date()
    let before = await board.runner.nowMs
    daemon.signal(signal)
    #expect(await board.waitUntil(playing: false))
    let silentAfterMs = await board.runner.nowMs - before
    #expect(silentAfterMs < 1_000, "silent \(silentAfterMs) ms after the signal")
    #expect(await board.runner.withBoard { !$0.actuators.isAlerting })
    let exit = await daemon.exit()
    let exited = Date()
    #expect(exit?.exitCode == 0, "\(String(describing: exit)): \(daemon.standardError)")
    await board.stop()

    let calls = try CallHistory(path: folder.history).calls()
    let call = try #require(calls.first { $0.id == "c1" })
    #expect(call.outcome == .missed && call.reason == "interrupted", "\(call)")
    let ended = try #require(call.endedAt)
    #expect(ended >= signalled.addingTimeInterval(-0.01) && ended <= exited, "ended \(ended), signal \(signalled)")
  }

  /// `run --simulate`: the in-process board is silenced before it stops. It used to be stopped first (a
  /// service group stops its services last to first, and the boards came last), so the STOP never reached it
  /// and its timeline ended ringing.
  @Test func aSimulatedBoardIsSilencedAtShutdown() async throws {
    let folder = try Folder()
    let options = DaemonOptions(
      configPath: folder.config, simulate: true, socketPath: folder.socket, readStandardInput: false,
      historyPath: folder.history)
    let daemon = try await TestClockDaemon(options: options)
    let board = try #require(daemon.board())
    let runner = board.runner
    #expect(Answer.of(try await folder.request(#"{"type":"call","id":"c1"}"#))?.isSuccess == true)
    #expect(await daemon.waitUntil(board, playing: true))

    try await daemon.shutDown()
    #expect(await runner.withBoard { !$0.actuators.isAlerting && $0.timeline.alertSpans.allSatisfy { $0.end != nil } })
    let calls = try CallHistory(path: folder.history).calls()
    #expect(calls.first?.reason == "interrupted", "\(calls)")
  }

  /// A second daemon on the same socket, or on the same history with another socket, is refused at start
  /// naming the first one's PID (here, the test's own); it used to take over the history silently. A lock
  /// file left by a daemon killed with SIGKILL holds nothing: the next daemon starts.
  @Test func aSecondDaemonOnTheSameSocketOrHistoryIsRefusedNamingTheFirst() async throws {
    let folder = try Folder()
    // A lock file as a SIGKILLed daemon leaves it: a PID, no lock held.
    try "999999\n".write(toFile: folder.history + ".lock", atomically: true, encoding: .utf8)
    let options = DaemonOptions(
      configPath: folder.config, simulate: true, socketPath: folder.socket, readStandardInput: false,
      historyPath: folder.history
    ).withVirtualBoards()
    let first = try await Daemon.makeServiceGroup(options: options, logger: Logger(label: "test"), eventSink: { _ in })
    let running = Task { try await first.run() }

    for other in [
      options,
      DaemonOptions(
        configPath: folder.config, simulate: true, socketPath: folder.socket + "2", readStandardInput: false,
        historyPath: folder.history
      ).withVirtualBoards(),
    ] {
      do {
        _ = try await Daemon.makeServiceGroup(options: other, logger: Logger(label: "test"), eventSink: { _ in })
        Issue.record("a second daemon started on \(other.socketPath ?? "") and \(other.historyPath ?? "")")
      } catch let error as DaemonStartError {
        #expect(error.description.contains("PID \(getpid())"), "\(error)")
      }
    }
    // The first one is unharmed.
    #expect(Answer.of(try await folder.request(#"{"type":"status"}"#))?.isSuccess == true)
    await first.triggerGracefulShutdown()
    try await running.value
    // Its end released the locks: a new daemon starts.
    let again = try await Daemon.makeServiceGroup(options: options, logger: Logger(label: "test"), eventSink: { _ in })
    let rerun = Task { try await again.run() }
    await again.triggerGracefulShutdown()
    try await rerun.value
  }

  /// `run --simulate` keeps its calls out of the real history unless `--history` names one.
  @Test func simulateUsesAHistoryOfItsOwnUnlessOneIsNamed() throws {
    let folder = try Folder("history:\n  path: \(FileManager.default.temporaryDirectory.path)/h/history.sqlite\n")
    let real = try Daemon.configuration(for: DaemonOptions(configPath: folder.config)).historyPath
    let simulated = try Daemon.configuration(for: DaemonOptions(configPath: folder.config, simulate: true))
    #expect(real.hasSuffix("/h/history.sqlite"))
    #expect(simulated.historyPath.hasSuffix("/h/history-simulate.sqlite"))
    let named = try Daemon.configuration(
      for: DaemonOptions(configPath: folder.config, simulate: true, historyPath: "/tmp/x.sqlite"))
    #expect(named.historyPath == "/tmp/x.sqlite")
  }
}
