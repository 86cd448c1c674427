import ArgumentParser
import CallAlertClient
import CallAlertProtocol
import CallAlertSerial

/// `--port` and `--baud`, shared by every command that talks to a board.
struct PortOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "The board's serial port or pseudo-terminal, or `auto` for the only board there is.", valueName: "path|auto"))
  var port: String = "auto"

  @Option(name: .long, help: "Baud rate of a real UART (USB CDC-ACM ignores it).")
  var baud: Int = SerialPort.defaultBaudRate

  init() {}

  /// Options given in code rather than on the command line.
  init(port: String, baud: Int) {
    self.port = port
    self.baud = baud
  }

  func validate() throws {
    guard (300...4_000_000).contains(baud) else { throw ValidationError("--baud must be 300 to 4000000, got \(baud)") }
    guard !port.isEmpty else { throw ValidationError("--port needs a path, or auto") }
  }

  /// Resolves `auto`, opens the port and connects a client.
  func connect(
    options: BoardClientOptions = BoardClientOptions()
  ) async throws -> (BoardClient<ContinuousClock>, BoardInfo) {
    let path = try await BoardLocator.resolve(port)
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
