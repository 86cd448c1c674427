import ArgumentParser
import CallAlertDoctor

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension CallAlertCommand {
  /// `callalert doctor`: what is wrong with this setup, and how to fix it.
  struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "doctor",
      abstract: "Check the setup and say how to fix what is wrong.",
      discussion: """
        Checks, in order: the config file loads; the daemon answers on its control socket, and the socket's \
        mode; the udev rule is installed and keeps ModemManager away (Linux); each configured board is found, \
        readable and writable by you, its firmware speaks this protocol, and it holds the table patterns.file \
        builds (a BBC micro:bit is named, and told which HEX to drag when it lacks the CallAlert image); the \
        history is writable; each phone-system source (`sources:`) is connected. Each problem comes with its \
        fix. Boards and sources the daemon holds are reported from the daemon; without it, boards are asked for \
        their INFO and sources for a TCP connection (2 s at most), with an AMI secret file's mode checked. \
        Exits 1 when a check found an error (warnings do not count).
        """)

    @Option(
      help: ArgumentHelp("The config file (default: ~/.config/callalert/config.yaml if present).", valueName: "file"))
    var config: String?
    @Option(help: ArgumentHelp("The daemon's control socket (default: the config's).", valueName: "path"))
    var socket: String?
    @Flag(help: "Print the findings as JSON.") var json = false

    func run() async throws {
      let doctor = CallAlertDoctor.Doctor(system: LiveDoctorSystem(), probes: .live, version: BuildVersion.line)
      let report = await doctor.run(configPath: config, socketPath: socket)
      if json { try printJSON(report) } else { print(report.text) }
      if !report.isHealthy { throw ExitCode(1) }
    }
  }
}
