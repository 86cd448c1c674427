import ArgumentParser
import CallAlertQemu
import CallAlertSerial
// Full Foundation, not FoundationEssentials: FileHandle.
import Foundation
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension CallAlertCommand.Board {
  /// `callalert board qemu`: the Embedded Swift firmware in QEMU, its UART behind a pseudo-terminal.
  struct Qemu: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "qemu",
      abstract: "Run the board firmware in QEMU (mps2-an386) behind a pseudo-terminal until SIGINT or SIGTERM.",
      discussion: """
        Starts qemu-system-arm with the Embedded Swift firmware (built with `make firmware` first when the \
        default image is missing), puts the firmware's UART0 on a pseudo-terminal and prints its path; any host \
        can open it like a real board's port: callalert board info --port /dev/pts/N. The pseudo-terminal is \
        held open, so hosts may come and go. The firmware's debug console (UART1) goes to --debug-log.
        """
    )

    @Option(name: .long, help: ArgumentHelp("Make PATH a symbolic link to the pseudo-terminal.", valueName: "path"))
    var link: String?

    @Option(
      name: .long,
      help: ArgumentHelp("The firmware image (default: the machine's, from make firmware).", valueName: "elf"))
    var image: String?

    @Option(
      name: .long,
      help: ArgumentHelp("The machine: mps2-an386 or microbit (the micro:bit v1 image).", valueName: "name"))
    var machine: String = QemuMachine.mps2An386.rawValue

    @Option(name: .long, help: ArgumentHelp("The QEMU executable.", valueName: "path"))
    var qemu: String = QemuBoard.defaultExecutable

    @Option(name: .long, help: ArgumentHelp("Write the firmware's debug console (UART1) here.", valueName: "file"))
    var debugLog: String?

    @Flag(
      name: .long, inversion: .prefixedNo,
      help: ArgumentHelp(
        "Tie QEMU's clock to executed instructions (-icount shift=auto).",
        discussion:
          "Off by default: the firmware counts a 25 MHz hardware timer, so without -icount board time follows the host's clock; with it, it was measured 2-4 % fast."
      ))
    var icount = false

    func run() async throws {
      guard let machine = QemuMachine(rawValue: machine) else {
        throw ValidationError("--machine \(machine): unknown; one of mps2-an386, microbit")
      }
      let image = image ?? machine.defaultImage
      try await buildImageIfMissing(image, default: machine.defaultImage)
      // In its own process group, so Ctrl-C reaches only this command, which stops QEMU by pid.
      let board = try await QemuBoard(
        image: image, qemu: qemu, debugLog: debugLog, icount: icount, forwardsOutput: true, ownProcessGroup: true,
        machine: machine
      ).start()
      let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { board.stop() }
      defer { signals.cancel() }
      let slavePath = board.pseudoTerminalPath
      let keepAlive: FileDescriptor
      do {
        // Held open so QEMU always sees a connected line: it drops what the firmware sends otherwise, and
        // notices a host that opens the line only once a second.
        keepAlive = try PseudoTerminal.holdOpen(slavePath: slavePath)
        if let link { try makeLink(link, to: slavePath) }
      } catch {
        await board.stopAndWait()
        throw error
      }
      defer {
        if let link { try? FileManager.default.removeItem(atPath: link) }
        try? keepAlive.close()
      }
      FileHandle.standardError.write(
        Data(
          ("QEMU board (pid \(board.pid)) on \(slavePath)"
            + "\(link.map { " (link: \($0))" } ?? ""); connect with: callalert board info --port "
            + "\(link ?? slavePath)\n").utf8))
      FileHandle.standardOutput.write(Data((slavePath + "\n").utf8))

      let status = await board.waitForExit()
      if !board.wasStopped && status != 0 {
        throw CommandFailure("QEMU exited with status \(status)")
      }
    }

    /// Runs `make firmware` (from the repository root) when the default image does not exist yet.
    private func buildImageIfMissing(_ image: String, default defaultImage: String) async throws {
      guard !FileManager.default.fileExists(atPath: image) else { return }
      guard image == defaultImage, FileManager.default.fileExists(atPath: "Makefile") else {
        throw ValidationError("no firmware image at \(image); run `make firmware` in the repository first")
      }
      FileHandle.standardError.write(Data("building the firmware: make firmware\n".utf8))
      try await QemuBoard.buildFirmware()
    }

    private func makeLink(_ link: String, to target: String) throws {
      let manager = FileManager.default
      if let attributes = try? manager.attributesOfItem(atPath: link) {
        guard attributes[.type] as? FileAttributeType == .typeSymbolicLink else {
          throw ValidationError("--link \(link) exists and is not a symbolic link; not replacing it")
        }
        try manager.removeItem(atPath: link)
      }
      try manager.createSymbolicLink(atPath: link, withDestinationPath: target)
    }
  }
}
