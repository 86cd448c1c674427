import ArgumentParser
import CallAlertBoardCore
import CallAlertClient
import CallAlertLights
import CallAlertProtocol
import CallAlertSerial
import CallAlertText
import CallAlertTransport
import CallAlertVirtualBoard
import Dispatch
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
  /// `callalert board simulate`: the board's firmware core behind a pseudo-terminal.
  struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "simulate",
      abstract: "Run a virtual board behind a pseudo-terminal until SIGINT or SIGTERM.",
      discussion: """
        Prints the pseudo-terminal's path (and makes --link a symbolic link to it); any host can open it \
        like a real board's port. The actuators show live on one status line; --timeline writes every \
        change as a JSON line: {"t_ms": 1200, "buzzer_hz": 2700, "buzzer_volume": 200, "motor": [180], "led": 1}. \
        Type b and Enter to press the button, l and Enter to long-press it, r and Enter to reboot the board.

        --baud paces the board's end only: the host's writes to the pseudo-terminal never wait for the line (a \
        UART makes the host wait after about 4 KiB), so with faults and a large flash the host's \
        retransmissions can back the line up for seconds.
        """
    )

    @Option(
      name: .long,
      help: ArgumentHelp(
        "Make PATH a symbolic link to the pseudo-terminal (default: where `--port auto` looks).", valueName: "path"))
    var link: String = BoardLocator.virtualBoardLink

    @Flag(name: .long, help: "Make no symbolic link.")
    var noLink = false

    @Option(name: .long, help: ArgumentHelp("Write the actuator timeline here as JSON lines.", valueName: "file"))
    var timeline: String?

    @Option(name: .long, help: ArgumentHelp("Keep the pattern flash in this file across runs.", valueName: "file"))
    var flash: String?

    @Option(name: .long, help: "Pace the line at this baud rate (8N1) with 1 ms of USB latency each way.")
    var baud: Int?

    @Option(name: .long, help: "Board serial number.")
    var serial: String = "VB-0001"

    @Option(name: .long, help: "Number of vibration motors (1-8).")
    var motors: UInt8 = 1

    @OptionGroup var faults: FaultOptions

    @Option(
      help: ArgumentHelp(
        "Simulate a USB light of this kind instead (kuando, blink1, luxafor, embrava): it rings --pattern until the "
          + "cap or Ctrl-C and shows each report it receives.", valueName: "kind"))
    var kind: LightKind?

    @Option(help: "With --kind: the built-in pattern it rings.") var pattern = "UK"
    @Option(help: "With --kind: the ring's colour (a name or #rrggbb).") var color = "red"
    @Option(help: "With --kind kuando: the ringtone.") var ringtone = "telephoneOriginal"
    @Option(help: "With --kind kuando: the volume, 0-7.") var volume: UInt8 = 4
    @Option(help: "With --kind: how long it rings at most, in seconds (the cap, 1-30).") var seconds: UInt32 = 30

    func validate() throws {
      if kind != nil {
        if LightColor(text: color) == nil { throw ValidationError("--color '\(color)' is not a colour") }
        if KuandoRingtone(name: ringtone) == nil {
          let names = KuandoRingtone.allCases.map(\.name).joined(separator: ", ")
          throw ValidationError("--ringtone '\(ringtone)' is not one of \(names)")
        }
        if volume > KuandoSound.maximumVolume { throw ValidationError("--volume must be 0 to 7") }
        if seconds < 1 || seconds > 30 { throw ValidationError("--seconds must be 1 to 30") }
      }
      if let baud, baud < 300 || baud > 4_000_000 {
        throw ValidationError("--baud must be 300 to 4000000, got \(baud)")
      }
      if motors < 1 || motors > 8 { throw ValidationError("--motors must be 1 to 8, got \(motors)") }
      if serial.isEmpty || serial.utf8.count > BoardInfo.maxSerialLength
        || !serial.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
      {
        throw ValidationError("--serial must be 1 to 32 printable ASCII characters")
      }
    }

    func run() async throws {
      if let kind {
        try await SimulateLight(
          kind: kind, pattern: pattern, timeline: timeline, color: LightColor(text: color) ?? .dark,
          ringtone: KuandoRingtone(name: ringtone) ?? .telephoneOriginal, volume: volume, capMs: seconds * 1_000
        ).run()
        return
      }
      var configuration = BoardConfiguration.virtualDefault
      configuration.serial = Array(serial.utf8)
      configuration.motorChannels = motors
      let flashMemory: VirtualFlash
      do {
        flashMemory = try flash.map { try VirtualFlash(path: $0) } ?? VirtualFlash()
      } catch {
        throw ValidationError("--flash: \(error)")
      }
      let board = VirtualBoard(
        configuration: configuration, flash: flashMemory, seed: UInt64.random(in: 1...UInt64.max))

      let (master, slavePath) = try PseudoTerminal.open()
      let keepAlive = try PseudoTerminal.holdOpen(slavePath: slavePath)
      let link = noLink ? nil : self.link
      if let link { try Self.makeLink(link, to: slavePath) }
      defer {
        // Only its own link: one another board simulate has put there since is that board's.
        if let link, (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == slavePath {
          try? FileManager.default.removeItem(atPath: link)
        }
        try? keepAlive.close()
      }

      let display = StatusDisplay(timelinePath: timeline)
      try display.open()
      board.hardware.onChange = { entry in display.show(entry) }
      display.show(ActuatorTimeline.Entry(ms: 0, state: board.actuators))

      let channel = try DescriptorChannel(taking: master, name: slavePath)
      let transport: any ByteTransport =
        baud != nil || !faults.profile.isClean
        ? ShapedTransport(
          wrapping: channel, pacing: WirePacing(baud: baud, latencyMicros: baud == nil ? 0 : 1_000),
          faults: faults.profile, seed: faults.seed, clock: ContinuousClock())
        : channel
      let runner = VirtualBoardRunner(board: board, transport: transport, clock: ContinuousClock())

      FileHandle.standardError.write(
        Data("virtual board \(serial) on \(slavePath)\(link.map { " (link: \($0))" } ?? "")\n".utf8))
      FileHandle.standardOutput.write(Data((slavePath + "\n").utf8))

      let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { Task { await runner.stop() } }
      defer { signals.cancel() }
      let keys = Task.detached { await readKeys(runner: runner) }
      defer { keys.cancel() }
      try await runner.run()
      display.close()
    }

    /// Points `link` at `target`: a symbolic link left by a board that is gone is replaced; anything else there
    /// (a file, another running board's link) is refused.
    static func makeLink(_ link: String, to target: String) throws {
      let manager = FileManager.default
      if let attributes = try? manager.attributesOfItem(atPath: link) {
        guard attributes[.type] as? FileAttributeType == .typeSymbolicLink else {
          throw ValidationError("--link \(link) exists and is not a symbolic link; not replacing it")
        }
        // A link to a pseudo-terminal that is still there is another running virtual board's: a second
        // `board simulate` took it over and removed it on exit, leaving the first unreachable by `auto`.
        if let current = try? manager.destinationOfSymbolicLink(atPath: link), manager.fileExists(atPath: current) {
          throw CommandFailure(
            "--link \(link) points to \(current), another virtual board that is running; give this one "
              + "--link PATH (and its host --port PATH) or --no-link")
        }
        try manager.removeItem(atPath: link)
      }
      try manager.createSymbolicLink(atPath: link, withDestinationPath: target)
    }
  }
}

/// Keys typed on standard input (a line each): b presses the button for 100 ms, l long-presses it, r reboots.
private func readKeys<C: Clock>(runner: VirtualBoardRunner<C>) async where C.Duration == Duration {
  while let line = await Task.detached(operation: { readLine() }).value {
    switch line.trimmingWhitespace() {
    case "b":
      await runner.setButton(down: true)
      try? await Task.sleep(for: .milliseconds(100))
      await runner.setButton(down: false)
    case "l":
      await runner.setButton(down: true)
      try? await Task.sleep(for: .milliseconds(1_200))
      await runner.setButton(down: false)
    case "r": await runner.reboot()
    default: continue
    }
  }
}

/// Fault injection for the virtual board's line.
struct FaultOptions: ParsableArguments {
  @Option(name: .long, help: "Probability that a byte is dropped (0-1).")
  var drop: Double = 0
  @Option(name: .long, help: "Probability that a byte is corrupted (0-1).")
  var corrupt: Double = 0
  @Option(name: .long, help: "Probability that a byte is duplicated (0-1).")
  var duplicate: Double = 0
  @Option(name: .long, help: "Seed for the faults, so that a run repeats.")
  var seed: UInt64 = 1

  var profile: FaultProfile { FaultProfile(dropRate: drop, corruptRate: corrupt, duplicateRate: duplicate) }

  func validate() throws {
    for (name, value) in [("--drop", drop), ("--corrupt", corrupt), ("--duplicate", duplicate)]
    where !(0...1).contains(value) {
      throw ValidationError("\(name) must be between 0 and 1, got \(value)")
    }
  }
}
