import ArgumentParser
import CallAlertDaemon
import CallAlertEngine
import CallAlertInputs
import CallAlertSimulation
import Foundation

/// Where the daemon's socket is: --socket, or the config's, or the default.
struct SocketOption: ParsableArguments {
  @Option(help: ArgumentHelp("The daemon's control socket.", valueName: "path")) var socket: String?
  @Option(help: ArgumentHelp("The config file naming the socket.", valueName: "file")) var config: String?

  func path() throws -> String {
    if let socket { return socket }
    return try Daemon.configuration(for: DaemonOptions(configPath: config)).socketPath
  }

  /// Sends one request; returns the answer, or fails with its error when the daemon refused it.
  func send(_ request: [String: Any], json: Bool = true) async throws -> [String: Any] {
    try await exchange(request).object
  }

  /// Sends one request; returns the answer as sent and as an object, or fails when the daemon refused it.
  func exchange(_ request: [String: Any]) async throws -> (line: String, object: [String: Any]) {
    let line = String(
      decoding: try JSONSerialization.data(withJSONObject: request, options: [.sortedKeys]), as: UTF8.self)
    let answer = try await ControlSocketClient.request(line, path: try path())
    guard let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any] else {
      throw CommandFailure("the daemon answered something that is not a JSON object: \(DisplayText.excerpt(answer))")
    }
    if object["ok"] as? Bool != true {
      throw CommandFailure(DisplayText.safe((object["error"] as? String) ?? answer))
    }
    return (answer, object)
  }
}

/// How `notify` reports what the daemon did: one line for people (`ringing c1 on desk`), or with `--json`
/// the daemon's answer as it came.
struct AnswerOptions: ParsableArguments {
  @Flag(help: "Print the daemon's answer as JSON.") var json = false

  /// Sends `request` and prints what happened.
  func send(_ request: [String: Any], with socket: SocketOption) async throws {
    let (line, object) = try await socket.exchange(request)
    if json {
      print(line)
    } else {
      print((object["message"] as? String).map(DisplayText.safe) ?? "ok")
    }
  }
}

extension CallAlertCommand {
  /// `callalert notify …`: tell the running daemon about a call.
  struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Tell the running daemon about a call, a hangup, an answer, a push payload or an acknowledgement.",
      subcommands: [Call.self, Hangup.self, Answered.self, Push.self, Ack.self, DoNotDisturb.self, Silent.self])

    struct Call: AsyncParsableCommand {
      static let configuration = CommandConfiguration(abstract: "An incoming call.")
      @OptionGroup var socket: SocketOption
      @Option(help: "The call's id (one alert per id).") var id: String
      @Option(help: "The caller's number.") var caller: String?
      @Option(help: "The caller's name.") var name: String?
      @Option(help: "When the call was sent (ISO 8601 or Unix seconds); the cap counts from there.") var sentAt: String?
      @Option(help: "passive, active, time-sensitive or critical.") var level: String?
      @Option(help: "A pattern name to suggest.") var pattern: String?
      @OptionGroup var output: AnswerOptions

      func run() async throws {
        var request: [String: Any] = ["type": "call", "id": id]
        if let caller { request["caller"] = caller }
        if let name { request["name"] = name }
        if let sentAt { request["sent_at"] = Double(sentAt).map { $0 as Any } ?? sentAt }
        if let level { request["level"] = level }
        if let pattern { request["pattern"] = pattern }
        try await output.send(request, with: socket)
      }
    }

    struct Hangup: AsyncParsableCommand {
      static let configuration = CommandConfiguration(abstract: "The caller hung up.")
      @OptionGroup var socket: SocketOption
      @Option(help: "The call's id.") var id: String
      @OptionGroup var output: AnswerOptions
      func run() async throws { try await output.send(["type": "hangup", "id": id], with: socket) }
    }

    struct Answered: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "The call was answered elsewhere (all calls without --id).")
      @OptionGroup var socket: SocketOption
      @Option(help: "The call's id.") var id: String?
      @OptionGroup var output: AnswerOptions
      func run() async throws {
        var request: [String: Any] = ["type": "answered"]
        if let id { request["id"] = id }
        try await output.send(request, with: socket)
      }
    }

    struct Push: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
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
        // line:column is a place in this file.
        let name = file == "-" ? "<stdin>" : file
        try await output.send(
          ["type": "push", "payload": try PushPayload.text(of: Array(data), source: name), "file": name], with: socket)
      }
    }

    struct Ack: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Acknowledge: stop every ringing call, or clear missed calls.")
      @OptionGroup var socket: SocketOption
      @OptionGroup var output: AnswerOptions
      func run() async throws { try await output.send(["type": "ack"], with: socket) }
    }

    struct DoNotDisturb: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "dnd", abstract: "Switch do-not-disturb: on, off or scheduled.")
      @OptionGroup var socket: SocketOption
      @Argument(help: "on, off or scheduled.") var mode: String
      func validate() throws {
        guard ["on", "off", "scheduled"].contains(mode) else {
          throw ValidationError("mode must be on, off or scheduled")
        }
      }
      func run() async throws { _ = try await socket.send(["type": "dnd", "mode": mode]) }
    }

    struct Silent: AsyncParsableCommand {
      static let configuration = CommandConfiguration(abstract: "Switch silent mode (vibrate only): on or off.")
      @OptionGroup var socket: SocketOption
      @Argument(help: "on or off.") var state: String
      func validate() throws {
        guard ["on", "off"].contains(state) else { throw ValidationError("state must be on or off") }
      }
      func run() async throws { _ = try await socket.send(["type": "silent", "on": state == "on"]) }
    }
  }

  /// `callalert status`.
  struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show the running daemon's calls, do-not-disturb and boards.")
    @OptionGroup var socket: SocketOption
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let answer = try await socket.send(["type": "status"])
      guard let status = answer["status"] as? [String: Any] else {
        throw CommandFailure("no status in the daemon's answer")
      }
      if json {
        let data = try JSONSerialization.data(withJSONObject: status, options: [.prettyPrinted, .sortedKeys])
        print(String(decoding: data, as: UTF8.self))
        return
      }
      if let history = status["history"] as? [String: Any],
        history["state"] as? String != "ok" || (history["lost"] as? Int ?? 0) > 0
      {
        print(
          "history: \(history["state"] ?? "?") (\(history["error"] ?? "")), \(history["pending"] ?? 0) pending, \(history["lost"] ?? 0) lost"
        )
      }
      let dnd = status["do_not_disturb"] as? [String: Any] ?? [:]
      print(
        "do-not-disturb: \(dnd["override"] as? String ?? dnd["mode"] as? String ?? "?")\((dnd["active"] as? Bool) == true ? " (active now)" : "")\((dnd["silent"] as? Bool) == true ? ", silent" : "")"
      )
      // Names, ids and serials come from outside (a push, a board): shown safely, never raw to the terminal.
      func shown(_ value: Any?) -> String { DisplayText.excerpt(value.map { "\($0)" } ?? "") }
      for board in status["boards"] as? [[String: Any]] ?? [] {
        let state =
          board["link"] as? String ?? ((board["connected"] as? Bool) == true ? "connected" : "not connected")
        let serial = board["serial"].map { ", serial \(shown($0))" } ?? ""
        let playing = board["playing_call"].map { ", ringing \(shown($0))" } ?? ""
        print("board \(shown(board["name"])): \(state)\(serial)\(playing)")
      }
      let calls = status["calls"] as? [[String: Any]] ?? []
      print(calls.isEmpty ? "no call ringing" : "ringing:")
      for call in calls {
        let boards = (call["playing_on"] as? [String] ?? []).map { shown($0) }.joined(separator: ", ")
        print(
          "  \(shown(call["id"])) \(shown(call["name"])) \(shown(call["caller"])): "
            + "\((call["remaining_ms"] as? Int ?? 0) / 1000) s left on \(boards)")
      }
      let missed = status["missed"] as? [[String: Any]] ?? []
      if !missed.isEmpty { print("missed, not acknowledged: \(missed.count)") }
    }
  }

  /// `callalert history`.
  struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show recent calls: from the running daemon, else from the history file.")
    @Option(help: ArgumentHelp("The config file naming the history.", valueName: "file")) var config: String?
    @Option(help: ArgumentHelp("The history database.", valueName: "file")) var database: String?
    @Flag(help: "Only missed calls.") var missed = false
    @Option(help: "How many calls.") var limit: Int = 20
    @Flag(help: "Print JSON (dates in ISO 8601, as the control socket writes them).") var json = false
    @Flag(help: "The history of `run --simulate` (history-simulate.sqlite beside the configured one).")
    var simulate = false

    func validate() throws {
      guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
      if database != nil && simulate { throw ValidationError("give --database or --simulate, not both") }
    }

    func run() async throws {
      let configuration = try Daemon.configuration(for: DaemonOptions(configPath: config, simulate: simulate))
      if database == nil, !simulate {
        // The running daemon knows what waits in memory; it never answers ok while records are pending or lost.
        if let answer = try await HistoryFromDaemon.ask(
          socketPath: configuration.socketPath, missedOnly: missed, limit: limit)
        {
          try HistoryPrinter.print(answer.calls, missedOnly: missed, json: json)
          if let warning = answer.warning { throw CommandFailure(warning) }
          return
        }
      }
      let path = database ?? configuration.historyPath
      guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("no history at \(path) yet") }
      try HistoryPrinter.print(path: path, missedOnly: missed, limit: limit, json: json)
    }
  }

  /// `callalert demo`.
  struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show the main job on an in-process virtual board: calls, hangups, quiet hours, the cap.",
      discussion:
        "Time runs --speed times faster (the 30 s cap takes 30/speed s); with the default 2 it ends in about 27 s.")
    @Option(help: "How many times faster than real time.") var speed: Double = 2

    func validate() throws {
      guard speed >= 0.5 && speed <= 50 else { throw ValidationError("--speed must be 0.5 to 50") }
    }

    func run() async throws {
      print("CallAlert demo: a virtual board in-process, time x\(speed). Events (>>) beside the board's actuators (|).")
      let live = isatty(STDOUT_FILENO) == 1
      let screen = DemoScreen()
      let output: @Sendable (String) -> Void = { line in screen.line(line, live: live) }
      var status: (@Sendable (String) -> Void)? = nil
      if live { status = { line in screen.status(line) } }
      let events = try await DemoScenario(speed: speed).run(output: output, status: status)
      screen.line("", live: live)
      let rang = events.filter { if case .ringing = $0 { true } else { false } }.count
      let missed = events.filter { if case .missed = $0 { true } else { false } }.count
      print("done: \(rang) rings, \(missed) missed calls recorded and acknowledged.")
    }
  }
}

/// The demo's terminal: event lines scroll, the board's state stays on the bottom line.
final class DemoScreen: @unchecked Sendable {
  private let lock = NSLock()
  private var current = ""

  func line(_ text: String, live: Bool) {
    lock.lock()
    defer { lock.unlock() }
    guard live else { return Swift.print(text) }
    FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + text + "\n" + current).utf8))
  }

  func status(_ text: String) {
    lock.lock()
    defer { lock.unlock() }
    current = text
    FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + text).utf8))
  }
}
