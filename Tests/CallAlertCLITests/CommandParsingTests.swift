import ArgumentParser
import CallAlertControl
import CallAlertEngine
import CallAlertValues
import Foundation
import Logging
import Testing

@testable import callalert

/// The commands' options are typed: values outside a closed set are refused with the set, by ArgumentParser,
/// before anything is sent; `--port` and `--baud` are validated the same way by every command.
@Suite struct CommandParsingTests {
  @Test func aCallIsTypedFromItsOptions() throws {
    let command = try CallAlertCommand.Notify.Call.parse([
      "--id", "c1", "--caller", "+4930123", "--name", "Alice", "--level", "time-sensitive", "--sent-at",
      "1795298400", "--pattern", "office",
    ])
    #expect(
      try command.request()
        == .input(
          .call(
            IncomingCall(
              id: "c1", callerNumber: "+4930123", callerName: "Alice",
              sentAt: Date(timeIntervalSince1970: 1_795_298_400), level: .timeSensitive, patternHint: "office"))))
  }

  @Test(arguments: [
    (["--id", "c1", "--level", "urgent"], "'time-sensitive'"),
    (["--id", "c1", "--sent-at", "yesterday"], "--sent-at yesterday is not a time"),
    (["--id", "", "--level", "active"], "--id"),
  ])
  func aBadCallIsRefusedBeforeItIsSent(arguments: [String], message: String) {
    #expect(throws: (any Error).self) { try CallAlertCommand.Notify.Call.parse(arguments) }
    do {
      _ = try CallAlertCommand.Notify.Call.parse(arguments)
    } catch {
      let text = CallAlertCommand.Notify.Call.message(for: error)
      #expect(text.contains(message), "\(text)")
    }
  }

  /// A negative number was read as an option ("Missing value for '--ms <ms>'"), and `--columns 0` or `100000`
  /// were taken; each number is read with its range now, and the message says it.
  @Test func numbersOutsideTheirRangeAreRefusedWithTheRange() {
    func message<C: ParsableCommand>(_ command: C.Type, _ arguments: [String]) -> String {
      do {
        _ = try command.parse(arguments)
        return "parsed"
      } catch {
        return command.message(for: error)
      }
    }
    let play = message(CallAlertCommand.Board.Play.self, ["--tone", "440", "--ms", "-5"])
    #expect(play.contains("'-5'") && play.contains("--ms") && play.contains("from 1 to 65535"), "\(play)")
    #expect(message(CallAlertCommand.Board.Play.self, ["--slot", "64"]).contains("from 0 to 63"))
    #expect(message(CallAlertCommand.Board.Play.self, ["--slot", "1", "--cap", "30001"]).contains("from 1 to 30000"))
    #expect(message(CallAlertCommand.Patterns.Render.self, ["US", "--columns", "0"]).contains("from 20 to 1000"))
    #expect(message(CallAlertCommand.Patterns.Render.self, ["US", "--columns", "100000"]).contains("from 20 to 1000"))
    #expect(message(CallAlertCommand.History.self, ["--limit", "-1"]).contains("from 1 to 1000"))
    #expect(message(CallAlertCommand.Patterns.Render.self, ["US", "--columns", "40"]) == "parsed")
  }

  @Test func doNotDisturbAndSilentTakeTheirWordsOnly() throws {
    #expect(try CallAlertCommand.Notify.DoNotDisturb.parse(["scheduled"]).mode == .scheduled)
    #expect(try CallAlertCommand.Notify.Silent.parse(["on"]).state == .on)
    #expect(throws: (any Error).self) { try CallAlertCommand.Notify.DoNotDisturb.parse(["maybe"]) }
    #expect(throws: (any Error).self) { try CallAlertCommand.Notify.Silent.parse(["yes"]) }
  }

  @Test func runTakesTypedEventsAndLogLevels() throws {
    let run = try CallAlertCommand.Run.parse(["--events", "text", "--log-level", "debug", "--port", "/dev/ttyACM0"])
    #expect(run.events == .text)
    #expect(run.logLevel == .debug)
    #expect(run.port.port == "/dev/ttyACM0")
    #expect(throws: (any Error).self) { try CallAlertCommand.Run.parse(["--events", "yaml"]) }
    #expect(throws: (any Error).self) { try CallAlertCommand.Run.parse(["--log-level", "loud"]) }
    #expect(throws: (any Error).self) { try CallAlertCommand.Run.parse(["--port", "/dev/x", "--simulate"]) }
  }

  /// Every command with `--port` and `--baud` takes them from ``PortOptions``, and refuses the same bad values
  /// with the same words.
  static let boardCommands: [any ParsableCommand.Type] = [
    CallAlertCommand.Run.self, CallAlertCommand.Flash.self, CallAlertCommand.Patterns.Check.self,
    CallAlertCommand.Patterns.List.self, CallAlertCommand.Patterns.Pull.self, CallAlertCommand.Board.Info.self,
    CallAlertCommand.Board.Status.self, CallAlertCommand.Board.Stop.self, CallAlertCommand.Board.Reset.self,
    CallAlertCommand.Board.Play.self,
  ]

  @Test(arguments: 0..<boardCommands.count)
  func everyBoardCommandValidatesItsPortAlike(index: Int) {
    let command = Self.boardCommands[index]
    let file =
      command == CallAlertCommand.Flash.self || command == CallAlertCommand.Patterns.Check.self ? ["f.yaml"] : []
    for (arguments, message) in [
      (["--baud", "12"], "--baud must be 300 to 4000000, got 12"), (["--port", ""], "--port needs a path, or auto"),
    ] {
      do {
        _ = try command.parseAsRoot(file + arguments)
        Issue.record("\(command) took \(arguments)")
      } catch {
        #expect(command.message(for: error) == message, "\(command)")
      }
    }
  }

  /// The help lists the values a typed option takes.
  @Test func helpListsTheValues() {
    let call = CallAlertCommand.Notify.Call.helpMessage(columns: 200)
    #expect(call.contains("--level <level>"))
    #expect(call.contains("values: passive, active, time-sensitive, critical"))
    let run = CallAlertCommand.Run.helpMessage(columns: 200)
    #expect(run.contains("values: json, text"))
    #expect(run.contains("values: trace, debug, info, notice, warning, error, critical"))
    #expect(run.contains("--port <path|auto>"))
    let dnd = CallAlertCommand.Notify.DoNotDisturb.helpMessage(columns: 200)
    #expect(dnd.contains("values: on, off, scheduled"))
  }
}
