import ArgumentParser

/// The `callalert` command: the runtime for CallAlert call-alert boards.
@main
struct CallAlertCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "callalert",
    abstract: "Ring, vibrate and blink a CallAlert USB board for incoming calls.",
    version: BuildVersion.line,
    subcommands: [
      Run.self, Demo.self, Notify.self, Status.self, History.self, Patterns.self, Flash.self, Ports.self, Board.self,
      Doctor.self, KDEConnect.self,
    ]
  )
}
