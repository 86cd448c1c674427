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

  /// `callalert --version` alone is answered before the parser is built: building it reflects on every
  /// command's options (most of the command's start-up time), and scripts and package checks ask for the
  /// version often. The line is the one the parser prints for `--version`; anything else goes to the parser.
  static func main() async {
    if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
      print(BuildVersion.line)
      return
    }
    await main(nil)
  }
}
