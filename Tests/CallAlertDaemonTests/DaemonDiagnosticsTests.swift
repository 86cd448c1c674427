import CallAlertControl
import CallAlertDaemon
import CallAlertTestSupport
import CallAlertValues
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// What the daemon tells a user about a setup that cannot work, in `status` rather than once in its log.
@Suite("Daemon diagnostics", .timeLimit(.minutes(1)))
struct DaemonDiagnosticsTests {
  /// A board at a port that is no serial port (`--port /dev/null`, a typo) said `connecting` for ever; the
  /// reason was in the log, once. `status` names the port and the last failure.
  @Test func aBoardThatNeverConnectsShowsWhereTheDaemonLooksAndWhy() async throws {
    let setup = try DaemonEndToEndTests.Setup(port: "/dev/null")
    let group = try await Daemon.makeServiceGroup(
      options: DaemonOptions(configPath: setup.config, readStandardInput: false), logger: Logger(label: "test"),
      eventSink: { _ in })
    let running = Task { try await group.run() }
    defer { running.cancel() }
    // The first try fails at once; the status is asked again until it says so, at most 10 s.
    let status = try await answer(within: 10) {
      try await ControlClient.socket(path: setup.socket).status()
    } until: {
      $0.boards.first?.problem != nil
    }
    let board = status.boards.first
    #expect(board?.connected == false)
    #expect(board?.port == "/dev/null")
    #expect(board?.problem?.contains("/dev/null is not a serial port") == true, "\(String(describing: board))")
    await group.triggerGracefulShutdown()
    try await running.value
  }

  /// `status`, `notify` and `history` read the config for its socket: an `http:` section stopped them with
  /// "this program was built without the HTTP API". Only the daemon that would serve it checks that.
  @Test func aConfigWithHTTPLoadsForClientsAndOnlyADaemonWithoutTheAPIRefusesIt() async throws {
    let setup = try DaemonEndToEndTests.Setup(port: "/dev/null")
    try (try String(contentsOfFile: setup.config, encoding: .utf8) + "\nhttp:\n  listen: 127.0.0.1:0\n").write(
      toFile: setup.config, atomically: true, encoding: .utf8)
    let configuration = try Daemon.configuration(for: DaemonOptions(configPath: setup.config))
    #expect(configuration.http != nil)
    await #expect {
      _ = try await Daemon.makeServiceGroup(
        options: DaemonOptions(configPath: setup.config, readStandardInput: false), logger: Logger(label: "test"),
        eventSink: { _ in })
    } throws: { error in
      (error as? DaemonStartError)?.description.contains("built without the HTTP API") == true
    }
  }
}

/// Where the daemon puts things it was not asked to.
@Suite("Daemon paths", .timeLimit(.minutes(1)))
struct DaemonPathTests {
  /// `run --socket /no/such/dir/x.sock` made every missing folder (0755) for the socket's lock file, then
  /// failed or not; the path is refused with what to do, and nothing is created.
  @Test func aSocketInAFolderWhoseParentIsMissingIsRefusedAndNothingIsMade() async throws {
    let setup = try DaemonEndToEndTests.Setup(port: "/dev/null")
    let missing = setup.directory.appendingPathComponent("no/such")
    var options = DaemonOptions(configPath: setup.config, readStandardInput: false)
    options.socketPath = missing.appendingPathComponent("x.sock").path
    await #expect {
      _ = try await Daemon.makeServiceGroup(options: options, logger: Logger(label: "test"), eventSink: { _ in })
    } throws: { error in
      "\(error)".contains("it does not exist, nor does \(setup.directory.appendingPathComponent("no").path)")
    }
    #expect(!FileManager.default.fileExists(atPath: setup.directory.appendingPathComponent("no").path))
  }
}
