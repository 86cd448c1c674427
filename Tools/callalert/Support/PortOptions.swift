import ArgumentParser
import CallAlertClient
import CallAlertProtocol
import CallAlertSerial

/// `--port` and `--baud`, shared by every command that talks to a board, with one validation.
struct PortOptions: ParsableArguments {
  /// The baud rates a UART may be given.
  static let baudRates = 300...4_000_000

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The board's serial port or pseudo-terminal, or `auto` for the only board there is.", valueName: "path|auto"))
  var port: String?

  @Option(name: .long, help: "Baud rate of a real UART (USB CDC-ACM ignores it).")
  var baud: Int = SerialPort.defaultBaudRate

  init() {}

  /// Options given in code rather than on the command line.
  init(port: String?, baud: Int = SerialPort.defaultBaudRate) {
    self.port = port
    self.baud = baud
  }

  /// The port to open: `--port`, else `auto`.
  var path: String { port ?? "auto" }

  func validate() throws {
    guard Self.baudRates.contains(baud) else {
      throw ValidationError("--baud must be \(Self.baudRates.lowerBound) to \(Self.baudRates.upperBound), got \(baud)")
    }
    if let port, port.isEmpty { throw ValidationError("--port needs a path, or auto") }
  }

  /// Resolves `auto`, opens the port and connects a client.
  func connect(
    options: BoardClientOptions = BoardClientOptions()
  ) async throws -> (BoardClient<ContinuousClock>, BoardInfo) {
    let path = try await BoardLocator.resolve(path)
    let transport = try SerialPort.open(path, baudRate: baud)
    var options = options
    // Deadlines allow for the line's real speed (a UART slower than 115 200 baud).
    if options.timing == .standard { options.timing = LinkTiming(baudRate: baud) }
    let client = BoardClient(transport: transport, clock: ContinuousClock(), options: options)
    do {
      return (client, try await client.connect())
    } catch {
      await client.close()
      throw CommandFailure("\(path): \(error)")
    }
  }
}

/// A failure already phrased for the user; printed as `error: …` with exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
