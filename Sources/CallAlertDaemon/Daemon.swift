import CallAlertBoardCore
import CallAlertClient
import CallAlertEngine
import CallAlertHistory
import CallAlertInputs
import CallAlertProtocol
import CallAlertSerial
import CallAlertVirtualBoard
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

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

  /// Creates options.
  public init(
    configPath: String? = nil, port: String? = nil, simulate: Bool = false, socketPath: String? = nil,
    events: EventsFormat? = nil, readStandardInput: Bool = true, baudRate: Int = SerialPort.defaultBaudRate
  ) {
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
    if let port = options.port {
      if configuration.engine.boards.isEmpty { configuration.engine.boards = [AlertBoard(name: "board")] }
      configuration.engine.boards[0].port = port
    }
    return configuration
  }

  /// Runs until SIGINT or SIGTERM, then stops every board and returns.
  public static func run(options: DaemonOptions, logger: Logger) async throws {
    try await makeServiceGroup(options: options, logger: logger, signals: [.sigterm, .sigint]).run()
  }

  /// Builds the daemon's services (engine and boards, control socket, event printer, standard input) as a
  /// group that stops gracefully on `signals` or on `triggerGracefulShutdown()`.
  public static func makeServiceGroup(
    options: DaemonOptions, logger: Logger, signals: [UnixSignal] = [], eventSink: (@Sendable (String) -> Void)? = nil
  ) async throws -> ServiceGroup {
    let configuration = try Self.configuration(for: options)
    let history: CallHistory
    do {
      history = try CallHistory(path: configuration.historyPath)
    } catch {
      throw DaemonStartError(description: "history \(configuration.historyPath): \(error)")
    }
    let server: ControlSocketServer
    do {
      server = try ControlSocketServer(
        path: configuration.socketPath, mode: mode_t(configuration.socketMode), logger: logger)
    } catch {
      throw DaemonStartError(description: "\(error)")
    }
    var virtualBoards: [VirtualBoardRunner<ContinuousClock>] = []
    var connectors: [String: AlertService<ContinuousClock>.Connector] = [:]
    for board in configuration.engine.boards {
      if options.simulate {
        let (hostEnd, boardEnd) = MemoryTransport.pair(names: ("host", "virtual \(board.name)"))
        var boardConfiguration = BoardConfiguration.virtualDefault
        boardConfiguration.serial = Array((board.serialNumber ?? "VB-\(board.name)").utf8.prefix(32))
        virtualBoards.append(
          VirtualBoardRunner(
            board: VirtualBoard(configuration: boardConfiguration), transport: boardEnd, clock: ContinuousClock()))
        let handed = HandOnce(hostEnd)
        connectors[board.name] = { try handed.take() }
      } else {
        connectors[board.name] = connector(for: board, baudRate: options.baudRate)
      }
    }
    let logger = logger
    let writer = HistoryWriter(history, logger: logger)
    let service = AlertService(
      configuration: configuration.engine, connectors: connectors, clock: ContinuousClock(), logger: logger,
      recorder: { event, at in writer.record(event, at: at) },
      linkTiming: options.simulate ? .standard : LinkTiming(baudRate: options.baudRate))
    // Calls left ringing by a daemon that died are closed; missed calls nobody acknowledged blink again.
    if let closed = try? history.closeInterrupted(at: Date()), closed > 0 {
      logger.notice("closed \(closed) call(s) left ringing by an earlier run")
    }
    if let missed = try? history.unacknowledgedMissed() { await service.restoreMissed(missed) }
    let bridges = BridgeService(
      sources: configuration.sources, region: configuration.engine.defaultRegion, service: service,
      clock: ContinuousClock(), logger: logger)
    let handler = ControlHandler(
      service: service, history: writer, configuration: configuration, options: options, logger: logger,
      bridges: bridges)
    let events = await service.subscribe()
    let format = configuration.eventsFormat

    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
      // With no sources it returns at once, and the daemon goes on without it.
      .init(service: TaskService { await bridges.run() }, successTerminationBehavior: .ignore),
      .init(
        service: TaskService {
          await service.run()
          await writer.drain()  // the last events (the boards stopped at shutdown) reach the disk
        }),
      .init(
        service: TaskService {
          await server.run { line, number, source in await handler.handle(line, lineNumber: number, source: source) }
        }),
      .init(
        service: TaskService {
          for await published in events {
            let line =
              format == .json
              ? EventLine.json(published.event, at: published.at) : EventLine.text(published.event, at: published.at)
            if let eventSink { eventSink(line) } else { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
          }
        }),
    ]
    for runner in virtualBoards { services.append(.init(service: TaskService { _ = try? await runner.run() })) }
    if options.readStandardInput {
      // The end of standard input ends only this reader; the daemon goes on serving its socket.
      services.append(
        .init(
          service: TaskService {
            for await line in StandardInputReader.lines() {
              let answer: String
              switch line {
              case .line(let text, let number):
                if text.allSatisfy(\.isWhitespace) { continue }
                answer = await handler.handle(text, lineNumber: number, source: "<stdin>")
              case .tooLong(let number):
                answer = ControlResponse.failure("<stdin>:\(number):1: line longer than 256 KiB")
              }
              // Successful inputs answer {"ok":true}; only failures are worth a line on standard error.
              if !answer.hasPrefix(#"{"ok":true"#) { FileHandle.standardError.write(Data((answer + "\n").utf8)) }
            }
          }, successTerminationBehavior: .ignore))
    }
    logger.info("callalert daemon: \(configuration.engine.boards.count) board(s), socket \(configuration.socketPath)")
    return ServiceGroup(
      configuration: ServiceGroupConfiguration(services: services, gracefulShutdownSignals: signals, logger: logger))
  }

  /// Opens a configured board: its port path, `auto`, or the port whose board has its serial number.
  static func connector(for board: AlertBoard, baudRate: Int) -> AlertService<ContinuousClock>.Connector {
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

/// Hands a value out once (an in-process board's transport); later calls fail, as an unplugged port would.
final class HandOnce<Value: Sendable>: Sendable {
  private let value: Mutex<Value?>
  init(_ value: Value) { self.value = Mutex(value) }
  func take() throws -> Value {
    guard
      let value = value.withLock({ current in
        defer { current = nil }; return current
      })
    else {
      throw DaemonStartError(description: "the in-process virtual board is gone")
    }
    return value
  }
}
