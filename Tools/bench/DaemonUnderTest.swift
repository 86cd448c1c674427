import CallAlertDaemon
import CallAlertValues
import Foundation
import Logging
import ServiceLifecycle

/// The daemon as `callalert run` builds it (``Daemon/makeServiceGroup(options:logger:signals:eventSink:)``), in
/// this process, with a config file naming the probed boards' pseudo-terminals, a private control socket and
/// history in a temporary directory.
struct DaemonUnderTest {
  /// The control socket.
  let socket: String
  /// The temporary directory (config, socket, history).
  let directory: URL
  private let group: ServiceGroup
  private let running: Task<Void, any Error>

  /// Writes the config and starts the daemon. Calls ring the built-in "DE" cadence (a steady 1 s tone, sent
  /// inline: the virtual boards have no table), and the missed-call indicator is off, so that "all
  /// actuators off" is what a hangup leaves. `extraConfig` is appended to the config (a `sip:` section);
  /// `eventSink` receives the daemon's event lines.
  static func start(
    boardPaths: [String], label: String, addOns: [DaemonAddOn] = [], extraConfig: String = "",
    eventSink: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws -> DaemonUnderTest {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-bench-\(label)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let socket = directory.appendingPathComponent("control.sock").path
    let boards = boardPaths.enumerated().map { "  - name: board\($0.offset)\n    port: \($0.element)" }
    let yaml = """
      boards:
      \(boards.joined(separator: "\n"))
      patterns:
        default: DE
      missed_indicator: off
      socket:
        path: \(socket)
      history:
        path: \(directory.appendingPathComponent("history.sqlite").path)
      \(extraConfig)
      """
    let config = directory.appendingPathComponent("config.yaml").path
    try yaml.write(toFile: config, atomically: true, encoding: .utf8)
    var logger = Logger(label: "bench-daemon")
    logger.logLevel = .error
    var options = DaemonOptions(configPath: config, readStandardInput: false)
    if !addOns.isEmpty {
      options.http = HTTPListenAddress(host: "127.0.0.1", port: 0)
      options.addOns = addOns
    }
    let group = try await Daemon.makeServiceGroup(options: options, logger: logger, eventSink: eventSink)
    let running = Task { try await group.run() }
    return DaemonUnderTest(socket: socket, directory: directory, group: group, running: running)
  }

  /// Sends one request line on the control socket (a fresh connection, as `callalert notify` makes) and
  /// returns the answer line.
  func request(_ line: String) async throws -> String {
    try await ControlSocketClient.request(line, path: socket)
  }

  /// Stops the daemon gracefully (it silences its boards) and removes the directory.
  func stop() async {
    await group.triggerGracefulShutdown()
    _ = await running.result
    try? FileManager.default.removeItem(at: directory)
  }
}
