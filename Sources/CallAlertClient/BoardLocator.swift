import CallAlertProtocol
import CallAlertSerial

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

    /// Whether the port's USB IDs are CallAlert's.
    public var hasCallAlertIDs: Bool { info?.usbVendorID == usbVendorID && info?.usbProductID == usbProductID }
  }

  /// Asks the board at `path` for its INFO: open, HELLO, close. Fails fast (two tries of 150 ms).
  public static func probe(_ path: String, baudRate: Int = SerialPort.defaultBaudRate) async throws -> BoardInfo {
    let transport = try SerialPort.open(path, baudRate: baudRate)
    let options = BoardClientOptions(timing: LinkTiming(baseTimeoutMs: 150, maxTries: 2), handshakeAttempts: 1)
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
    for index in ports.indices where probeAll || isLikelyBoard(ports[index]) {
      do {
        ports[index].board = try await probe(ports[index].path)
      } catch {
        ports[index].probeError = "\(error)"
      }
    }
    return ports
  }

  /// Resolves a `--port` value: a path is returned as it is; `auto` is the only port with a board behind
  /// it. Errs clearly when there is none or more than one.
  public static func resolve(_ port: String) async throws(BoardLocatorError) -> String {
    guard port == "auto" else { return port }
    let found = await discover().filter { $0.board != nil }
    switch found.count {
    case 1: return found[0].path
    case 0: throw .noBoard
    default:
      throw .severalBoards(found.map { "\($0.path) (serial \(String(decoding: $0.board!.serial, as: UTF8.self)))" })
    }
  }

  static func isLikelyBoard(_ port: Port) -> Bool {
    if port.info == nil || port.hasCallAlertIDs { return true }
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

  /// A message naming what to do.
  public var description: String {
    switch self {
    case .noBoard:
      "no CallAlert board found (checked USB CDC-ACM ports and \(BoardLocator.virtualBoardLink)); plug one in, "
        + "or start a virtual one with `callalert board simulate`, or pass --port PATH"
    case .severalBoards(let boards):
      "several CallAlert boards found: \(boards.joined(separator: ", ")); pass --port PATH to pick one"
    }
  }
}
