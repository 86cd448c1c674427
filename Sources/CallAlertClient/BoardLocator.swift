import CallAlertProtocol
import CallAlertSerial
import CallAlertTransport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Finds CallAlert boards: lists serial ports, probes the likely ones with HELLO, and resolves
/// `--port auto` to the only board there is.
public enum BoardLocator {
  /// The USB vendor ID boards are expected to use: pid.codes' ID for open-source hardware.
  public static let usbVendorID: UInt16 = 0x1209
  /// The USB product ID boards are expected to use (to be registered with pid.codes).
  public static let usbProductID: UInt16 = 0xCA11
  /// The USB vendor ID of the BBC micro:bit's interface chip (Arm DAPLink), whose serial port carries the
  /// CallAlert firmware's UART (docs/HARDWARE.md).
  public static let daplinkVendorID: UInt16 = 0x0D28
  /// DAPLink's USB product ID.
  public static let daplinkProductID: UInt16 = 0x0204

  /// Where `callalert board simulate` links its pseudo-terminal by default, so `--port auto` finds it.
  public static var virtualBoardLink: String {
    if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
      return runtime + "/callalert-board"
    }
    return "/tmp/callalert-board-\(getuid())"
  }

  /// A port and, when it answered HELLO, the board behind it.
  public struct Port: Sendable {
    /// The path to open.
    public var path: String
    /// What the system knows of the port (nil for the virtual board's link).
    public var info: SerialPortInfo?
    /// The board's INFO when it answered; nil when it was not probed or did not answer.
    public var board: BoardInfo?
    /// Why probing failed, when it was probed and failed.
    public var probeError: String?
    /// Whether probing found the port held by another open (a running daemon, a terminal program).
    public var isBusy = false
    /// Who holds it, when ``isBusy`` and the holder could be found.
    public var heldBy: PortHolder?

    /// Whether the port's USB IDs are CallAlert's.
    public var hasCallAlertIDs: Bool { info?.usbVendorID == usbVendorID && info?.usbProductID == usbProductID }
    /// Whether the port is a micro:bit's (DAPLink's USB IDs): probed with HELLO like CallAlert's own.
    public var hasDAPLinkIDs: Bool {
      info?.usbVendorID == daplinkVendorID && info?.usbProductID == daplinkProductID
    }
  }

  /// How long a probe waits for HELLO's answer: two tries of 150 ms, so that a port with nothing behind it
  /// does not hold up `callalert ports` or `--port auto`.
  public static let probeTiming = LinkTiming(baseTimeoutMs: 150, maxTries: 2)

  /// Asks the board at `path` for its INFO: open, HELLO, close. Fails fast (``probeTiming``).
  public static func probe(
    _ path: String, baudRate: Int = SerialPort.defaultBaudRate, timing: LinkTiming = probeTiming
  ) async throws -> BoardInfo {
    let transport = try SerialPort.open(path, baudRate: baudRate)
    let options = BoardClientOptions(timing: timing, handshakeAttempts: 1)
    let client = BoardClient(transport: transport, clock: ContinuousClock(), options: options)
    let result: Result<BoardInfo, BoardClientError>
    do { result = .success(try await client.connect()) } catch { result = .failure(error) }
    await client.close()
    // The port is closed asynchronously; wait, so the caller can open it again at once.
    await transport.waitUntilReleased()
    return try result.get()
  }

  /// Every serial port, with the likely ones probed: ports with CallAlert's USB IDs, USB CDC-ACM ports
  /// (`ttyACM*`, `cu.usbmodem*`) and the virtual board's link. Other ports (RS-232, USB-serial adapters
  /// that may drive other devices) are listed but not written to unless `probeAll`.
  public static func discover(probeAll: Bool = false) async -> [Port] {
    var ports = ((try? SerialPortInfo.list()) ?? []).map { Port(path: $0.name, info: $0) }
    if access(virtualBoardLink, F_OK) == 0 { ports.append(Port(path: virtualBoardLink)) }
    return await probe(ports, all: probeAll)
  }

  /// Probes the likely boards among `ports` (every one with `all`): a board's INFO, or why not, and for a
  /// port held by another process, who holds it.
  static func probe(_ ports: [Port], all: Bool, timing: LinkTiming = probeTiming) async -> [Port] {
    var ports = ports
    for index in ports.indices where all || isLikelyBoard(ports[index]) {
      do {
        ports[index].board = try await probe(ports[index].path, timing: timing)
      } catch {
        ports[index].probeError = "\(error)"
        if let error = error as? SerialPortError, error.code == .busy {
          ports[index].isBusy = true
          ports[index].heldBy = error.holder
        }
      }
    }
    return ports
  }

  /// Resolves a `--port` value: a path is returned as it is; `auto` is the only port with a board behind
  /// it. Errs clearly when there is none or more than one, and when the only candidates are held by
  /// another process (a running daemon), naming it.
  public static func resolve(_ port: String) async throws(BoardLocatorError) -> String {
    guard port == "auto" else { return port }
    return try choose(from: await discover())
  }

  /// The only port with a board behind it, among probed ports.
  static func choose(from ports: [Port]) throws(BoardLocatorError) -> String {
    let found = ports.filter { $0.board != nil }
    switch found.count {
    case 1: return found[0].path
    case 0:
      let busy = ports.filter(\.isBusy)
      guard busy.isEmpty else {
        throw .busy(busy.map { BoardLocatorError.HeldPort(path: $0.path, holder: $0.heldBy) })
      }
      throw .noBoard
    default:
      throw .severalBoards(found.map { "\($0.path) (serial \(String(decoding: $0.board!.serial, as: UTF8.self)))" })
    }
  }

  static func isLikelyBoard(_ port: Port) -> Bool {
    if port.info == nil || port.hasCallAlertIDs || port.hasDAPLinkIDs { return true }
    let name = port.path.split(separator: "/").last.map(String.init) ?? port.path
    return name.hasPrefix("ttyACM") || name.hasPrefix("cu.usbmodem")
  }
}

/// Why `--port auto` found no single board.
public enum BoardLocatorError: Error, Equatable, CustomStringConvertible {
  /// No port answered as a CallAlert board.
  case noBoard
  /// More than one did.
  case severalBoards([String])
  /// None answered, and these likely ports are held by another process (a running `callalert run`).
  case busy([HeldPort])

  /// A port that another process holds, and who when known.
  public struct HeldPort: Equatable, Sendable {
    /// The port's path.
    public var path: String
    /// The process that holds it, when it could be found.
    public var holder: PortHolder?

    /// Creates an entry.
    public init(path: String, holder: PortHolder?) {
      self.path = path
      self.holder = holder
    }
  }

  /// A message naming what to do.
  public var description: String {
    switch self {
    case .noBoard:
      "no CallAlert board found (checked USB CDC-ACM ports and \(BoardLocator.virtualBoardLink)); plug one in, "
        + "or start a virtual one with `callalert board simulate`, or pass --port PATH"
    case .severalBoards(let boards):
      "several CallAlert boards found: \(boards.joined(separator: ", ")); pass --port PATH to pick one"
    case .busy(let ports):
      "no free CallAlert board: "
        + ports.map { "\($0.path) is busy, held by \($0.holder.map { "\($0)" } ?? "another process")" }
        .joined(separator: "; ")
        + "; stop that process to use the board directly (a running daemon answers `callalert status`)"
    }
  }
}
