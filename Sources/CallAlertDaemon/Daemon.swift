import CallAlertClient
import CallAlertControl
import CallAlertEngine
import CallAlertInputs
import CallAlertProtocol
import CallAlertSerial
import CallAlertTransport
import CallAlertValues
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `callalert run` was asked for on its command line; anything given overrides the config file.
public struct DaemonOptions: Sendable {
  /// The config file; nil: the default path if it exists, else built-in defaults.
  public var configPath: String?
  /// A port (or `auto`) for the first configured board.
  public var port: String?
  /// Run every configured board as an in-process virtual board.
  public var simulate: Bool
  /// The control socket's path.
  public var socketPath: String?
  /// How events are printed on standard output.
  public var events: EventsFormat?
  /// Whether to read JSON lines from standard input.
  public var readStandardInput: Bool
  /// The baud rate of real UART ports.
  public var baudRate: Int
  /// The history database; nil: the config's (with `simulate`, one of its own beside it).
  public var historyPath: String?
  /// Where the boards come from; nil: real ports (with `simulate`, the caller must hand in-process boards).
  public var boardSource: BoardSource?
  /// `--http ADDR:PORT`: serve the HTTP API there (over the config's `http.listen`); nil: as the config says.
  public var http: HTTPListenAddress?
  /// Services that ride on the daemon (the HTTP API, CallAlertHTTPDaemon): each is given the typed handler
  /// and the engine's events, and adds its services to the group.
  public var addOns: [DaemonAddOn] = []

  /// Creates options.
  public init(
    configPath: String? = nil, port: String? = nil, simulate: Bool = false, socketPath: String? = nil,
    events: EventsFormat? = nil, readStandardInput: Bool = true, baudRate: Int = SerialPort.defaultBaudRate,
    historyPath: String? = nil
  ) {
    self.historyPath = historyPath
    self.configPath = configPath
    self.port = port
    self.simulate = simulate
    self.socketPath = socketPath
    self.events = events
    self.readStandardInput = readStandardInput
    self.baudRate = baudRate
  }
}

/// Why the daemon could not start.
public struct DaemonStartError: Error, CustomStringConvertible {
  /// What went wrong, naming the file, the field or the path.
  public let description: String
  /// Whether another daemon holds what this one needs (as opposed to a file that cannot be made).
  public var isInUse: Bool

  /// Creates an error.
  public init(description: String, isInUse: Bool = false) {
    self.description = description
    self.isInUse = isInUse
  }
}

/// `callalert run`: the engine with its boards, inputs (standard input, the control socket) and history.
public enum Daemon {
  /// Loads the configuration the options name, with their overrides applied.
  public static func configuration(for options: DaemonOptions) throws(DaemonStartError) -> DaemonConfiguration {
    var configuration: DaemonConfiguration
    let path = options.configPath ?? DaemonConfiguration.defaultConfigPath()
    if options.configPath != nil || FileManager.default.fileExists(atPath: path) {
      do {
        configuration = try ConfigurationFile.load(path: path)
      } catch {
        throw DaemonStartError(description: "\(error)")
      }
    } else {
      configuration = DaemonConfiguration.defaults()
    }
    if let socket = options.socketPath { configuration.socketPath = socket }
    if let events = options.events { configuration.eventsFormat = events }
    if let history = options.historyPath {
      configuration.historyPath = history
    } else if options.simulate {
      configuration.historyPath = simulateHistoryPath(configuration.historyPath)
    }
    // The quiet hours as changed on the page stand in for the config file's section (QuietHoursFile).
    do {
      let quietHours = QuietHoursFile(historyPath: configuration.historyPath)
      if let section = try quietHours.read(region: configuration.engine.defaultRegion) {
        configuration.engine.doNotDisturb = section
      }
    } catch {
      throw DaemonStartError(description: "\(error)")
    }
    if let port = options.port {
      if configuration.engine.boards.isEmpty { configuration.engine.boards = [AlertBoard(name: "board")] }
      configuration.engine.boards[0].port = port
    }
    try applyHTTPOption(options, to: &configuration)
    _ = try PatternCatalog.load(for: configuration)  // names the config uses must exist
    return configuration
  }

  /// Runs until one of `signals` (or cancellation), then stops every board and returns. Tells `notifier`
  /// (systemd's `NOTIFY_SOCKET`) it is ready once the config is loaded and the control socket listens.
  public static func run(
    options: DaemonOptions, logger: Logger, signals: [UnixSignal] = [.sigterm, .sigint],
    notifier: SystemdNotifier = .fromEnvironment()
  ) async throws {
    let group = try await makeServiceGroup(options: options, clock: ContinuousClock(), logger: logger, signals: signals)
    notifier.ready(status: "serving")
    try await group.run()
  }

  /// Builds the daemon's services on the real clock: ``makeServiceGroup(options:clock:logger:signals:eventSink:)``
  /// with the `ContinuousClock`.
  public static func makeServiceGroup(
    options: DaemonOptions, logger: Logger, signals: [UnixSignal] = [], eventSink: (@Sendable (String) -> Void)? = nil
  ) async throws -> ServiceGroup {
    try await makeServiceGroup(
      options: options, clock: ContinuousClock(), logger: logger, signals: signals, eventSink: eventSink)
  }

  /// Builds the daemon's services (engine and boards, control socket, event printer, standard input) as a
  /// group that stops gracefully on `signals` or on `triggerGracefulShutdown()`. The deadlines, retries and
  /// timeouts of the engine, the boards, the sources, the control socket and the history's retries are on
  /// `clock`: the `ContinuousClock` when it serves, a test clock when a test drives it (with in-process boards
  /// on the same clock, `BoardSource.virtualBoards(clock:created:createdLight:)`). The wall clock still dates
  /// events and applies quiet hours, and the history's threads time their own batching and file checks.
  public static func makeServiceGroup<C: Clock<Duration>>(
    options: DaemonOptions, clock: C, logger: Logger, signals: [UnixSignal] = [],
    eventSink: (@Sendable (String) -> Void)? = nil
  ) async throws -> ServiceGroup {
    SignalHandling.ignoreBrokenPipes()
    let hangups = SignalHandling.hangups()  // from here on, SIGHUP reloads the config instead of ending the daemon
    let configuration = try Self.configuration(for: options)
    try checkAddOns(options, for: configuration)
    let locks = try lockInstance(configuration, logger: logger)
    let quietHours = QuietHoursFile(historyPath: configuration.historyPath)
    if quietHours.exists {
      logger.notice("do_not_disturb: as changed on the page (\(quietHours.path)), not as in the config file")
    }
    let patternTable = try PatternCatalog.load(for: configuration)
    let printerStart = clock.now
    let printer =
      eventSink == nil ? EventPrinter(logger: logger, now: { printerStart.duration(to: clock.now) }) : nil
    // The history never stops the daemon: one that cannot be opened or written is degraded (HistoryWriter).
    let writer = HistoryWriter(
      path: configuration.historyPath, keepDays: configuration.historyKeepDays, clock: clock,
      logger: logger,
      onChange: { [format = configuration.eventsFormat] health in
        let line = health.eventLine(format: format, at: Date())
        if let eventSink { eventSink(line) } else { printer?.print(line) }
      })
    let server: ControlSocketServer
    do {
      // One budget for the control socket's clients and the HTTP API's connections (ConnectionBudget).
      server = try ControlSocketServer(
        path: configuration.socketPath, mode: mode_t(configuration.socketMode), group: configuration.socketGroup,
        connections: ConnectionBudget(), logger: logger)
    } catch {
      throw DaemonStartError(description: "\(error)")
    }
    let boards = try Self.boardSource(for: options).makeBoards(configuration.engine.boards)
    let connectors = boards.connectors
    let logger = logger
    let service = AlertService(
      configuration: configuration.engine, connectors: connectors, lights: boards.lights, clock: clock,
      logger: logger,
      recorder: { event, at in writer.record(event, at: at) },
      recorderRoom: { if writer.isBehind { await writer.waitForRoom() } },
      linkTiming: options.simulate ? .standard : LinkTiming(baudRate: options.baudRate), patternTable: patternTable)
    // Calls left ringing by a daemon that died are closed; missed calls nobody acknowledged blink again.
    await writer.start(restoreMissed: { missed in await service.restoreMissed(missed) })
    let reloader = ConfigurationReloader(configuration, options: options, logger: logger) { reloaded in
      await service.reconfigure(reloaded.engine)
    }
    let intake = CallIntake(service: service, logger: logger)
    let sources = CallSources.all(
      in: CallSourceContext(
        configuration: configuration, intake: intake, service: service, patterns: patternTable,
        clock: clock, logger: logger,
        announce: { [format = configuration.eventsFormat] source in
          let line = source.eventLine(format: format, at: Date())
          if let eventSink { eventSink(line) } else { printer?.print(line) }
        }))
    let addOnHooks = DaemonAddOnHooks()
    let handler = ControlHandler(
      service: service, intake: intake, history: writer, reloader: reloader, logger: logger, sources: sources,
      addOns: addOnHooks)
    let endpoint = ControlLineEndpoint(handle: handler.handle, logger: logger)
    let events = await service.subscribe()

    // In-process boards come first: a group stops its services last to first, so they outlive the STOPs (and
    // a board whose link the service closed at shutdown may end before its turn).
    let handle: ControlSocketServer.Handler = { line, number, source in
      await endpoint.answer(line, lineNumber: number, source: source).line
    }
    var services = boards.services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
    services += [
      .init(service: AlertServiceRunner(service: service, history: writer, locks: locks, logger: logger)),
      .init(service: ControlSocketService(server: server, clock: clock, handler: handle)),
      .init(service: EventPrinterService(events: events, reloader: reloader, printer: printer, eventSink: eventSink)),
      .init(service: HangupReloadService(hangups: hangups, reloader: reloader)),
    ]
    // The sources stop before the engine (last to first), so no call comes in while it stops. Only those the
    // config asks for are made: a service that returned at once could race a shutdown begun just then, which
    // the group reports as a service that finished unexpectedly.
    services += sources.map { .init(service: $0, successTerminationBehavior: .ignore) }
    if options.readStandardInput {
      services.append(.init(service: StandardInputService(endpoint: endpoint), successTerminationBehavior: .ignore))
    }
    services += try await addOnServices(
      options, configuration, handler: handler, service: service, clock: clock, connections: server.connections,
      logger: logger,
      hooks: addOnHooks,
      announce: { [format = configuration.eventsFormat] source in
        let line = source.eventLine(format: format, at: Date())
        if let eventSink { eventSink(line) } else { printer?.print(line) }
      })
    logger.info("callalert daemon: \(configuration.engine.boards.count) board(s), socket \(configuration.socketPath)")
    return ServiceGroup(
      configuration: ServiceGroupConfiguration(services: services, gracefulShutdownSignals: signals, logger: logger))
  }

  /// Opens a configured board: its port path, `auto`, or the port whose board has its serial number.
  static func connector(for board: AlertBoard, baudRate: Int) -> BoardConnector {
    { @Sendable in
      if let port = board.port, port != "auto" { return try SerialPort.open(port, baudRate: baudRate) }
      if let serial = board.serialNumber {
        let found = await BoardLocator.discover().first {
          $0.board.map { String(decoding: $0.serial, as: UTF8.self) } == serial
        }
        guard let found else {
          throw DaemonStartError(description: "no board with serial number \(serial) is connected")
        }
        return try SerialPort.open(found.path, baudRate: baudRate)
      }
      return try SerialPort.open(try await BoardLocator.resolve("auto"), baudRate: baudRate)
    }
  }
}

extension AlertBoard {
  /// Where the daemon looks for the board, in the order ``Daemon/connector(for:baudRate:)`` tries: a port, a
  /// serial number among the plugged-in boards, or the first board found (`auto`).
  var whereToLook: String {
    if let port, port != "auto" { return port }
    if let serialNumber { return "serial \(serialNumber)" }
    return "auto"
  }
}
