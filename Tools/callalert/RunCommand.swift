import ArgumentParser
import CallAlertDaemon
import CallAlertHTTPDaemon
import CallAlertKDEConnectDaemon
import CallAlertSerial
import CallAlertSimulation
import CallAlertValues
import Logging

extension CallAlertCommand {
  /// `callalert run`: the daemon.
  struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "run",
      abstract: "Run the daemon: ring the boards for calls from standard input and the control socket.",
      discussion: """
        Reads JSON lines on standard input and on the control socket (see docs/CONFIG.md), e.g.
          {"type":"call","id":"c1","caller":"+14155550101","name":"Alice"}
          {"type":"hangup","id":"c1"}
        and prints every event as a JSON line (or text with --events text). Stops on SIGINT or SIGTERM, \
        silencing every board first and closing the calls that rang as interrupted in the history. SIGHUP \
        reloads the config file (a bad one is refused, the running one stays). One daemon per socket and \
        history: a second one is refused, naming the first one's PID.
        """
    )

    @OptionGroup(title: "Board (--port overrides the first configured board's)") var port: PortOptions
    @Flag(help: "Run every configured board as an in-process virtual board.") var simulate = false
    @Option(
      help: ArgumentHelp("The config file (default: ~/.config/callalert/config.yaml if present).", valueName: "file"))
    var config: String?
    @Option(help: ArgumentHelp("The control socket's path.", valueName: "path")) var socket: String?
    @Option(
      help: ArgumentHelp(
        "The history database (default: the config's; with --simulate, history-simulate.sqlite beside it).",
        valueName: "file"))
    var history: String?
    @Option(help: "How events are printed.") var events: EventsFormat?
    @Option(
      help: ArgumentHelp(
        "Serve the HTTP API (docs/openapi.yaml) on ADDR:PORT, e.g. 127.0.0.1:8080; beyond loopback the config's "
          + "http.token_file is required.", valueName: "addr:port"),
      transform: { text in
        switch HTTPListenAddress.parse(text) {
        case .success(let address): return address
        case .failure(let problem): throw ValidationError(problem.description)
        }
      })
    var http: HTTPListenAddress?
    @Flag(
      name: .customLong("no-http"),
      help: "Without http: in the config or --http, serve nothing (default: the page and the API on 127.0.0.1:8935).")
    var noHTTP = false
    @Flag(help: "Do not read standard input.") var noStdin = false
    @Flag(help: "Log debug detail on standard error (--log-level debug).") var verbose = false
    @Option(help: ArgumentHelp("The least severe messages logged (default info).", valueName: "level"))
    var logLevel: Logger.Level?

    func validate() throws {
      if port.port != nil && simulate { throw ValidationError("give --port or --simulate, not both") }
      if http != nil && noHTTP { throw ValidationError("give --http or --no-http, not both") }
    }

    func run() async throws {
      // Under systemd the journal stamps lines itself: DaemonLogging then drops the timestamp.
      DaemonLogging.bootstrap(level: logLevel ?? (verbose ? .debug : .info))
      var options = DaemonOptions(
        configPath: config, port: port.port, simulate: simulate, socketPath: socket, events: events,
        readStandardInput: !noStdin, baudRate: port.baud, historyPath: history)
      if simulate { options.boardSource = .virtualBoards() }
      options.http = http
      options.addOns = [.http(defaultListen: noHTTP ? nil : DaemonAddOn.defaultAddress), .kdeConnect()]
      do {
        try await Daemon.run(options: options, logger: Logger(label: "callalert"))
      } catch let error as DaemonStartError {
        throw CommandFailure(error.description)
      }
    }
  }
}
