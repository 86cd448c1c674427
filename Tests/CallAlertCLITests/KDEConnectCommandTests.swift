import ArgumentParser
import Testing

@testable import callalert

/// `callalert kdeconnect pair <device>` and `devices`: parsed from the command line, the socket option shared.
@Suite struct KDEConnectCommandTests {
  @Test func pairTakesTheDeviceAndTheSocket() throws {
    let command = try CallAlertCommand.KDEConnect.Pair.parse(["Pixel 7", "--socket", "/tmp/c.sock"])
    #expect(command.device == "Pixel 7")
    #expect(command.socket.socket == "/tmp/c.sock")
  }

  @Test func pairWithoutADeviceIsRefused() {
    #expect(throws: (any Error).self) { try CallAlertCommand.KDEConnect.Pair.parse([]) }
  }

  @Test func theCommandIsListed() {
    let names = CallAlertCommand.configuration.subcommands.map { $0.configuration.commandName }
    #expect(names.contains("kdeconnect"))
    #expect(CallAlertCommand.KDEConnect.configuration.subcommands.count == 2)
  }
}
