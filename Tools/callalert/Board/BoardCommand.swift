import ArgumentParser

extension CallAlertCommand {
  /// `callalert board …`: talk to one board, or run a virtual one.
  struct Board: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "board",
      abstract: "Run a virtual board or light, or talk to one board or light directly.",
      subcommands: [Simulate.self, Qemu.self, Info.self, Status.self, Play.self, Stop.self, Reset.self, Light.self]
    )
  }
}
