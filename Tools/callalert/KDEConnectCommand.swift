import ArgumentParser
import CallAlertControl

extension CallAlertCommand {
  /// `callalert kdeconnect`: the phones of the KDE Connect source (docs/PHONE.md).
  struct KDEConnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "kdeconnect", abstract: "Pair phones over KDE Connect, whose calls then ring the boards.",
      subcommands: [Pair.self, Devices.self])

    /// `callalert kdeconnect pair <device>`.
    struct Pair: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Accept a phone's pending pairing request (tap Request pairing on the phone first).",
        discussion: """
          The phone asks from its KDE Connect app (pick this host, tap Request pairing); this accepts within 30 \
          seconds. The phone's certificate is then pinned: a phone showing another one is refused.
          """)
      @OptionGroup var socket: SocketOption
      @Argument(help: ArgumentHelp("The phone's name as `callalert kdeconnect devices` shows it, or its id."))
      var device: String

      func run() async throws {
        let answer = try await socket.client().send(.pair(device: device))
        if case .failure(let failure) = answer { throw CommandFailure(failure.error) }
        print("paired with \(device)")
      }
    }

    /// `callalert kdeconnect devices`.
    struct Devices: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the phones: paired, reachable, asking to pair.")
      @OptionGroup var socket: SocketOption

      func run() async throws {
        let phones = (try await socket.client().status().sources ?? []).filter { $0.kind == "kdeconnect" }
        if phones.isEmpty { print("no phones (is KDE Connect open on the phone, on this network?)") }
        for phone in phones {
          print(
            "\(phone.name) (\(phone.address.isEmpty ? "never seen" : phone.address)): \(phone.state)"
              + (phone.reason.map { ", \($0)" } ?? ""))
        }
      }
    }
  }
}
