import CallAlertDaemon
import CallAlertSimulation
import CallAlertVirtualBoard
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The daemon in this process as `callalert run` runs it, on a config in a folder of its own (its control
/// socket and history there too), on the clock the test gives it: the one place the suites start a daemon,
/// collect its event lines, reach its in-process boards and lights, send it control requests and stop it.
/// On the real clock (``start(_:in:config:inProcessBoards:addOns:logger:configure:eventSink:)``) time passes
/// by itself; on a `TestClock` every deadline of the daemon and of its in-process boards and lights (link
/// retransmissions, leases, the cap, idle sweeps) waits for the test to move time, with the helpers of
/// `DaemonRig+TestClock.swift`, so what a test asserts about time holds however loaded the machine is.
/// Requests travel the real control socket either way. The suites' own rigs (SIP, KDE Connect, MQTT hosts,
/// HTTP) are this rig with their source's config and helpers.
public struct DaemonRig<C: Clock<Duration>>: Sendable {
  /// The daemon's folder: its config, and by default its control socket and history.
  public let directory: URL
  /// The config file's path.
  public let configPath: String
  /// The clock of the daemon and of its in-process boards and lights.
  public let clock: C
  /// Its event lines.
  public let events: LineLog
  /// The running daemon.
  public let group: ServiceGroup
  /// Its control socket's path: the one its options name, else `control.sock` in ``directory`` (as
  /// ``files(in:)`` writes it, and as every suite's config has it).
  public let socket: String
  /// The in-process boards, by board name (none when the daemon opens the ports its config names).
  public let boards: [String: Board]
  /// The in-process lights, by board name.
  public let lights: [String: VirtualLight<C>]
  private let running: Task<Void, any Error>

  /// Starts a daemon on `clock` in `directory` (a new one named after `name` when nil) on the config `config`
  /// returns for that folder (with ``files(in:)`` in it). Its boards are in-process virtual boards on `clock`
  /// (`run --simulate`) unless `inProcessBoards` is false: then the ports the config names. Its event lines go
  /// to ``events`` and to `eventSink`; `configure` sets any other option of the run.
  public static func start(
    _ name: String, in directory: URL? = nil, clock: C, config: (URL) -> String, inProcessBoards: Bool = true,
    addOns: [DaemonAddOn] = [], logger: Logger? = nil, configure: (inout DaemonOptions) -> Void = { _ in },
    eventSink: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws -> DaemonRig {
    let directory = try directory ?? DaemonRig<ContinuousClock>.makeDirectory(name)
    let configPath = directory.appendingPathComponent("config.yaml").path
    try config(directory).write(toFile: configPath, atomically: true, encoding: .utf8)
    var options = DaemonOptions(configPath: configPath, simulate: inProcessBoards, readStandardInput: false)
    options.addOns = addOns
    configure(&options)
    return try await start(
      options: options, clock: clock, in: directory, inProcessBoards: inProcessBoards,
      logger: logger ?? DaemonRig<ContinuousClock>.logger("callalert-\(name)"), eventSink: eventSink)
  }

  /// Starts the daemon `options` ask for on `clock`, its folder `directory` (by default the config file's;
  /// ``DaemonRigError/noFolder`` when there is neither). Every configured board is in-process on `clock` unless
  /// `inProcessBoards` is false (then the ports the config names, or the source `options` hand in). Its event
  /// lines go to ``events`` and to `eventSink`.
  public static func start(
    options: DaemonOptions, clock: C, in directory: URL? = nil, inProcessBoards: Bool = true, logger: Logger? = nil,
    eventSink: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws -> DaemonRig {
    guard let directory = directory ?? options.configPath.map({ URL(fileURLWithPath: $0).deletingLastPathComponent() })
    else { throw DaemonRigError.noFolder }
    let made = Mutex<[(String, VirtualBoardRunner<C>)]>([])
    let lights = Mutex<[String: VirtualLight<C>]>([:])
    var options = options
    if inProcessBoards {
      options.boardSource = .virtualBoards(
        clock: clock, created: { name, runner in made.withLock { $0.append((name, runner)) } },
        createdLight: { name, light in lights.withLock { $0[name] = light } })
    }
    let events = LineLog()
    let group = try await Daemon.makeServiceGroup(
      options: options, clock: clock, logger: logger ?? DaemonRig<ContinuousClock>.logger("callalert-test"),
      eventSink: { line in
        events.append(line)
        eventSink(line)
      })
    var boards: [String: Board] = [:]
    for (name, runner) in made.withLock({ $0 }) { boards[name] = await Board(runner) }
    let socket = options.socketPath ?? directory.appendingPathComponent("control.sock").path
    let running = Task { try await group.run() }
    return DaemonRig(
      directory: directory, configPath: options.configPath ?? directory.appendingPathComponent("config.yaml").path,
      clock: clock, events: events, group: group, socket: socket, boards: boards, lights: lights.withLock { $0 },
      running: running)
  }

  private init(
    directory: URL, configPath: String, clock: C, events: LineLog, group: ServiceGroup, socket: String,
    boards: [String: Board], lights: [String: VirtualLight<C>], running: Task<Void, any Error>
  ) {
    self.directory = directory
    self.configPath = configPath
    self.clock = clock
    self.events = events
    self.group = group
    self.socket = socket
    self.boards = boards
    self.lights = lights
    self.running = running
  }

  /// The in-process board of that name.
  public func board(_ name: String = "desk") -> Board? { boards[name] }

  /// Sends a control request line; the answer line.
  public func request(_ line: String) async throws -> String {
    try await ControlSocketClient.request(line, path: socket)
  }

  /// `status` as JSON text.
  public func status() async throws -> String {
    try await request(#"{"type":"status"}"#)
  }

  /// Waits until `status` says a board is connected, asking every 50 ms for at most `seconds`; the last answer.
  /// A call that comes before the board rings with no board first, so the tests' calls come once it is there.
  @discardableResult
  public func boardConnected(within seconds: Double = 30) async -> String {
    let rig = self
    return await answer(within: seconds) {
      (try? await rig.status()) ?? ""
    } until: {
      $0.contains(#""connected":true"#)
    }
  }

  /// The first event line containing every one of `parts`, within `seconds`.
  public func event(_ parts: String..., within seconds: Double = 20) async -> String? {
    await events.first(within: seconds) { line in parts.allSatisfy { line.contains($0) } }
  }

  /// Asks the daemon to stop gracefully, as SIGTERM does.
  public func triggerShutdown() async {
    await group.triggerGracefulShutdown()
  }

  /// Waits for the daemon's run to end, and rethrows what ended it.
  public func stopped() async throws {
    try await running.value
  }

  /// Stops the daemon (gracefully, as SIGTERM does) and removes its folder, unless `keepingDirectory` (to start
  /// again in it, as after a restart). On a test clock, see ``shutDown(within:)``: there the stop waits for the
  /// test to move time.
  public func stop(keepingDirectory: Bool = false) async throws {
    await triggerShutdown()
    try await stopped()
    if !keepingDirectory { try? FileManager.default.removeItem(at: directory) }
  }
}

extension DaemonRig where C == ContinuousClock {
  /// The config's `socket:` and `history:` sections for a daemon in `directory`, which every rig's config has (on
  /// either clock: these helpers are on `DaemonRig<ContinuousClock>` so that `DaemonRig.files(in:)` names it).
  public static func files(in directory: URL) -> String {
    """
    socket:
      path: \(directory.appendingPathComponent("control.sock").path)
    history:
      path: \(directory.appendingPathComponent("history.sqlite").path)
    """
  }

  /// A new private folder for a daemon, named after `name`.
  public static func makeDirectory(_ name: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// A logger that keeps quiet below warnings unless `CALLALERT_TEST_LOG` is set.
  public static func logger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = ProcessInfo.processInfo.environment["CALLALERT_TEST_LOG"] == nil ? .warning : .debug
    return logger
  }

  /// Starts a daemon on the real clock: ``start(_:in:clock:config:inProcessBoards:addOns:logger:configure:eventSink:)``
  /// with the `ContinuousClock`.
  public static func start(
    _ name: String, in directory: URL? = nil, config: (URL) -> String, inProcessBoards: Bool = true,
    addOns: [DaemonAddOn] = [], logger: Logger? = nil, configure: (inout DaemonOptions) -> Void = { _ in },
    eventSink: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws -> DaemonRig {
    try await start(
      name, in: directory, clock: ContinuousClock(), config: config, inProcessBoards: inProcessBoards,
      addOns: addOns, logger: logger, configure: configure, eventSink: eventSink)
  }

  /// Starts the daemon `options` ask for on the real clock: ``start(options:clock:in:inProcessBoards:logger:eventSink:)``
  /// with the `ContinuousClock`.
  public static func start(
    options: DaemonOptions, in directory: URL? = nil, inProcessBoards: Bool = true, logger: Logger? = nil,
    eventSink: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws -> DaemonRig {
    try await start(
      options: options, clock: ContinuousClock(), in: directory, inProcessBoards: inProcessBoards, logger: logger,
      eventSink: eventSink)
  }
}
