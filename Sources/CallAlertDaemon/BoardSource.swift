import CallAlertEngine
import CallAlertLights
import CallAlertTransport
import ServiceLifecycle

/// Opens a transport to a board; the same for every clock the daemon may run on.
public typealias BoardConnector = @Sendable () async throws -> any ByteTransport

/// Where the daemon's boards come from: each configured board's connector, and the services that must run
/// beside the daemon for them (an in-process virtual board's runner).
///
/// The daemon opens real ports unless it is handed another source: `run --simulate` hands it the in-process
/// virtual boards of CallAlertSimulation, so the daemon itself links neither the virtual board nor the board
/// core.
public struct BoardSource: Sendable {
  /// The boards' connectors by board name, and the services to start before the daemon's own (a group stops
  /// its services last to first, so these outlive the daemon's last words to the boards).
  public struct Boards {
    /// How to open each board's link, by board name.
    public var connectors: [String: BoardConnector]
    /// How to open each board that is a USB light, by board name.
    public var lights: [String: LightConnection]
    /// What must run for the boards to answer.
    public var services: [any Service]

    /// Creates the boards' connectors and services.
    public init(
      connectors: [String: BoardConnector], lights: [String: LightConnection] = [:],
      services: [any Service] = []
    ) {
      self.connectors = connectors
      self.lights = lights
      self.services = services
    }
  }

  /// Makes the connectors (and services) for the configured boards.
  public let makeBoards: @Sendable ([AlertBoard]) -> Boards

  /// A source from a function of the configured boards.
  public init(makeBoards: @escaping @Sendable ([AlertBoard]) -> Boards) {
    self.makeBoards = makeBoards
  }

  /// Real boards: each CallAlert board opened by its port, its serial number or discovery, at `baudRate`;
  /// each light through hidapi, by its hidraw path, its serial number or the first of its kind.
  public static func serialPorts(baudRate: Int) -> BoardSource {
    BoardSource { boards in
      var connectors: [String: BoardConnector] = [:]
      var lights: [String: LightConnection] = [:]
      for board in boards {
        if let kind = board.kind.lightKind {
          lights[board.name] = LightConnection(
            kind: kind, appearance: board.light, open: Daemon.lightOpener(for: board, kind: kind))
        } else {
          connectors[board.name] = Daemon.connector(for: board, baudRate: baudRate)
        }
      }
      return Boards(connectors: connectors, lights: lights)
    }
  }
}

extension Daemon {
  /// The source `options` asks for: the one handed in, else real ports; `simulate` without a source is a
  /// caller's mistake, reported rather than run against real ports.
  static func boardSource(for options: DaemonOptions) throws(DaemonStartError) -> BoardSource {
    if let source = options.boardSource { return source }
    guard !options.simulate else {
      throw DaemonStartError(
        description: "--simulate needs in-process boards: pass CallAlertSimulation's BoardSource.virtualBoards()")
    }
    return .serialPorts(baudRate: options.baudRate)
  }
}
