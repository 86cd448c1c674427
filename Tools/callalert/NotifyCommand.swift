import ArgumentParser
import CallAlertControl
import CallAlertDaemon
import CallAlertEngine
import CallAlertHTTPDaemon
import CallAlertInputs
import CallAlertSimulation
import CallAlertText
import CallAlertValues
// Full Foundation, not FoundationEssentials: FileHandle.
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the daemon's socket is: --socket, or the config's, or the default.
struct SocketOption: ParsableArguments {
  @Option(help: ArgumentHelp("The daemon's control socket.", valueName: "path")) var socket: String?
  @Option(help: ArgumentHelp("The config file naming the socket.", valueName: "file")) var config: String?

  func path() throws -> String {
    if let socket { return socket }
    return try Daemon.configuration(for: DaemonOptions(configPath: config)).socketPath
  }

  /// The typed client of the daemon there.
  func client() throws -> ControlClient { ControlClient.socket(path: try path()) }
}

/// How `notify` reports what the daemon did: one line for people (`ringing c1 on desk`), or with `--json`
/// the daemon's answer line.
struct AnswerOptions: ParsableArguments {
  @Flag(help: "Print the daemon's answer as JSON.") var json = false

  /// Sends `request` and prints what happened; a refusal is the command's failure.
  func send(_ request: ControlRequest, with socket: SocketOption) async throws {
    let outcome = try await socket.client().perform(request)
    print(json ? ControlResponse.outcome(outcome).line : outcome.text)
  }

  /// Switches do-not-disturb or silent mode and prints the state it is in now (a bare "ok" said nothing of
  /// what now holds), or with `--json` the daemon's answer line.
  func `switch`(_ input: EngineInput, with socket: SocketOption) async throws {
    let client = try socket.client()
    let outcome = try await client.perform(.input(input))
    if json {
      print(ControlResponse.outcome(outcome).line)
      return
    }
    print(StatusText.doNotDisturbLine(try await client.status().doNotDisturb))
  }
}

extension CallAlertCommand {
  /// `callalert notify …`: tell the running daemon about a call.
  struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "notify",
      abstract: "Tell the running daemon about a call, a hangup, an answer, a push payload or an acknowledgement.",
      subcommands: [Call.self, Hangup.self, Answered.self, Push.self, Ack.self, DoNotDisturb.self, Silent.self])

    struct Call: AsyncParsableCommand {
      static let configuration = CommandConfiguration(commandName: "call", abstract: "An incoming call.")
      @OptionGroup var socket: SocketOption
      @Option(help: "The call's id (one alert per id).") var id: String
      @Option(help: "The caller's number.") var caller: String?
      @Option(help: "The caller's name.") var name: String?
      @Option(help: "When the call was sent (ISO 8601 or Unix seconds); the cap counts from there.") var sentAt: String?
      @Option(help: "The call's interruption level (default active).") var level: InterruptionLevel?
      @Option(help: "A pattern name to suggest.") var pattern: String?
      @OptionGroup var output: AnswerOptions

      func validate() throws {
        if let problem = CallID.problem(id) { throw ValidationError("--id: \(problem)") }
        _ = try sentAtDate()
      }

      /// `--sent-at` read as the daemon reads `sent_at`.
      func sentAtDate() throws -> Date? {
        guard let sentAt else { return nil }
        guard let date = Timestamp.date(number: sentAt) ?? Timestamp.date(text: sentAt) else {
          throw ValidationError(
            "--sent-at \(DisplayText.excerpt(sentAt)) is not a time; expected \(Timestamp.expected)")
        }
        return date
      }

      /// The request this command sends.
      func request() throws -> ControlRequest {
        .input(
          .call(
            IncomingCall(
              id: id, callerNumber: caller.flatMap { $0.isEmpty ? nil : $0 },
              callerName: name.flatMap { $0.isEmpty ? nil : $0 }, sentAt: try sentAtDate(), level: level ?? .active,
              patternHint: pattern.flatMap { $0.isEmpty ? nil : $0 })))
      }

      func run() async throws { try await output.send(try request(), with: socket) }
    }

    struct Hangup: AsyncParsableCommand {
      static let configuration = CommandConfiguration(commandName: "hangup", abstract: "The caller hung up.")
      @OptionGroup var socket: SocketOption
      @Option(help: "The call's id.") var id: String
      @OptionGroup var output: AnswerOptions
      func run() async throws { try await output.send(.input(.hangup(callID: id)), with: socket) }
    }

    struct Answered: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "answered",
        abstract: "The call was answered elsewhere (all calls without --id).")
      @OptionGroup var socket: SocketOption
      @Option(help: "The call's id.") var id: String?
      @OptionGroup var output: AnswerOptions
      func run() async throws { try await output.send(.input(.answered(callID: id)), with: socket) }
    }

    struct Push: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "An APNs-style push payload from a file, or - for standard input.")
      @OptionGroup var socket: SocketOption
      @Argument(help: "The payload file, or -.") var file: String
      @OptionGroup var output: AnswerOptions
      func run() async throws {
        let data: Data
        if file == "-" {
          data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
          guard let contents = FileManager.default.contents(atPath: file) else {
            throw CommandFailure("\(file): cannot read it")
          }
          data = contents
        }
        // The file's bytes go to the daemon unchanged, as the text of the payload, so that an error's
        // line:column is a place in this file; a file that is not UTF-8 JSON is refused here, at its place.
        let name = file == "-" ? "<stdin>" : file
        let bytes = Array(data)
        _ = try PushPayload.text(of: bytes, source: name)
        let document = try PushPayload.Document.parse(bytes, origin: PushPayload.Origin(source: name))
        try await output.send(.push(document), with: socket)
      }
    }

    struct Ack: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "ack",
        abstract: "Acknowledge: stop every ringing call, or clear missed calls; with --id, one missed call.")
      @OptionGroup var socket: SocketOption
      @Option(help: ArgumentHelp("One missed call's id: acknowledge that call alone.", valueName: "id"))
      var id: String?
      @OptionGroup var output: AnswerOptions

      func validate() throws {
        if let id, let problem = CallID.problem(id) { throw ValidationError("--id: \(problem)") }
      }

      func run() async throws {
        let input: EngineInput = id.map { .acknowledgeMissed(callID: $0) } ?? .acknowledge(board: nil)
        try await output.send(.input(input), with: socket)
      }
    }

    struct DoNotDisturb: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "dnd", abstract: "Switch do-not-disturb: on, off or scheduled, for good or for a while.",
        discussion: """
          With --until or --for the switch ends by itself and the configured mode applies again: \
          `callalert notify dnd on --until 07:00` (the next 07:00 on this machine's clock), \
          `callalert notify dnd on --for 90m`.
          """)
      @OptionGroup var socket: SocketOption
      @Argument(help: "The mode.") var mode: DoNotDisturbMode
      @Option(
        help: ArgumentHelp(
          "When the switch ends: a clock time (07:00, the next one) or a moment (2026-11-28T07:00:00+01:00).",
          valueName: "time"))
      var until: String?
      @Option(
        name: .customLong("for"), help: ArgumentHelp("How long the switch lasts: 90m, 1h, 1.5h.", valueName: "duration")
      )
      var duration: String?
      @OptionGroup var output: AnswerOptions

      func validate() throws {
        if until != nil, duration != nil { throw ValidationError("give --until or --for, not both") }
        _ = try end(after: Date())
      }

      /// When the switch ends, from --until or --for; nil when neither was given.
      func end(after now: Date) throws -> Date? {
        if let until {
          guard let date = SwitchEnd.until(until, after: now, timeZone: .current) else {
            throw ValidationError("--until: \"\(DisplayText.excerpt(until))\" is not \(SwitchEnd.expectedUntil)")
          }
          return date
        }
        if let duration {
          guard let date = SwitchEnd.for(duration, after: now) else {
            throw ValidationError("--for: \"\(DisplayText.excerpt(duration))\" is not \(SwitchEnd.expectedFor)")
          }
          return date
        }
        return nil
      }

      func run() async throws {
        try await output.switch(.setDoNotDisturb(mode, until: try end(after: Date())), with: socket)
      }
    }

    struct Silent: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "silent", abstract: "Switch silent mode (vibrate only): on or off.")
      @OptionGroup var socket: SocketOption
      @Argument(help: "The state.") var state: Switch
      @OptionGroup var output: AnswerOptions
      func run() async throws { try await output.switch(.setSilent(state.isOn), with: socket) }
    }
  }

  /// `callalert status`.
  struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "status",
      abstract: "Show the running daemon's calls, do-not-disturb and boards.")
    @OptionGroup var socket: SocketOption
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let status = try await socket.client().status()
      if json {
        print(String(decoding: try ControlResponse.encoder(.prettyPrinted).encode(status), as: UTF8.self))
        return
      }
      for line in StatusText.lines(of: status) { print(line) }
    }
  }

  /// `callalert history`.
  struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "history",
      abstract: "Show recent calls: from the running daemon, else from the history file.")
    @Option(help: ArgumentHelp("The config file naming the history.", valueName: "file")) var config: String?
    @Option(help: ArgumentHelp("The daemon's control socket (asked first).", valueName: "path")) var socket: String?
    @Option(help: ArgumentHelp("The history database.", valueName: "file")) var database: String?
    @Flag(help: "Only missed calls.") var missed = false
    @Option(parsing: .unconditional, help: "How many calls (1-1000).", transform: wholeNumber(in: 1...1_000))
    var limit: Int = 20
    @Flag(help: "Print JSON (dates in ISO 8601, as the control socket writes them).") var json = false
    @Flag(help: "The history of `run --simulate` (history-simulate.sqlite beside the configured one).")
    var simulate = false

    func validate() throws {
      if database != nil && simulate { throw ValidationError("give --database or --simulate, not both") }
      if database != nil && socket != nil {
        throw ValidationError("give --database (read the file) or --socket (ask the daemon), not both")
      }
    }

    func run() async throws {
      let configuration = try Daemon.configuration(for: DaemonOptions(configPath: config, simulate: simulate))
      if database == nil, !simulate {
        // The running daemon knows what waits in memory; it never answers ok while records are pending or lost.
        if let answer = try await HistoryFromDaemon.ask(
          socketPath: socket ?? configuration.socketPath, missedOnly: missed, limit: limit)
        {
          try HistoryPrinter.print(answer.calls, missedOnly: missed, json: json)
          if let warning = answer.warning { throw CommandFailure(warning) }
          return
        }
        // A socket named on purpose that nobody listens on is a mistake to say, not a reason to read a file.
        if let socket { throw CommandFailure("no daemon listens on \(socket); start one with `callalert run`") }
      }
      let path = database ?? configuration.historyPath
      guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("no history at \(path) yet") }
      try HistoryPrinter.print(path: path, missedOnly: missed, limit: limit, json: json)
    }
  }

  /// `callalert demo`.
  struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "demo",
      abstract: "Show the main job on an in-process virtual board: calls, hangups, quiet hours, the cap.",
      discussion:
        "Time runs --speed times faster (the 30 s cap takes 30/speed s); with the default 2 it ends in about 27 s.")
    @Option(help: "How many times faster than real time.") var speed: Double = 2

    func validate() throws {
      guard speed >= 0.5 && speed <= 50 else { throw ValidationError("--speed must be 0.5 to 50") }
    }

    func run() async throws {
      let live = isatty(STDOUT_FILENO) == 1
      let screen = DemoScreen()
      screen.line(
        "CallAlert demo: a virtual board in-process, time x\(speed). Events (>>) beside the board's actuators (|).",
        live: false)
      let output: @Sendable (String) -> Void = { line in screen.line(line, live: live) }
      var status: (@Sendable (String) -> Void)? = nil
      if live { status = { line in screen.status(line) } }
      let events = try await DemoScenario(speed: speed).run(output: output, status: status)
      screen.line("", live: live)
      let rang = events.filter { if case .ringing = $0 { true } else { false } }.count
      let missed = events.filter { if case .missed = $0 { true } else { false } }.count
      print("done: \(rang) rings, \(missed) missed calls recorded and acknowledged.")
      print(
        "The page (boards, calls, history, quiet hours): `callalert run --simulate` serves it on "
          + "http://\(DaemonAddOn.defaultAddress)/page (docs/PAGE.md).")
    }
  }
}

/// The demo's terminal: event lines scroll, the board's state stays on the bottom line.
final class DemoScreen: Sendable {
  /// The bottom line, rewritten under each new line; the lock also keeps one write whole against another.
  private let current = Mutex("")

  func line(_ text: String, live: Bool) {
    current.withLock { current in
      guard live else {
        // Each line as it happens: piped (`make demo | tee`), standard output is block-buffered, and the
        // scenario's lines arrived in bursts of a few kilobytes.
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
        return
      }
      FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + text + "\n" + current).utf8))
    }
  }

  func status(_ text: String) {
    current.withLock { current in
      current = text
      FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + text).utf8))
    }
  }
}
