import ArgumentParser
import CallAlertClient
import CallAlertProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension CallAlertCommand.Board {
  /// `callalert board info`.
  struct Info: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "info",
      abstract: "Show the board's identity, capabilities and pattern table.")
    @OptionGroup var port: PortOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let (client, info) = try await port.connect()
      await client.close()
      if json { return try printJSON(BoardInfoJSON(info)) }
      let c = info.capabilities
      print(
        "board \(String(decoding: info.serial, as: UTF8.self)), firmware \(info.firmware.major).\(info.firmware.minor).\(info.firmware.patch), protocol \(info.minVersion)-\(info.maxVersion) (session v\(info.sessionVersion)), boot nonce \(hex32(info.bootNonce))"
      )
      print(
        "buzzer: \(c.buzzerChannels) x \(c.buzzerMinHz)-\(c.buzzerMaxHz) Hz; motors: \(c.motorChannels); LEDs: \(c.leds); buttons: \(c.buttons)"
      )
      print("patterns: \(c.patternSlots) slots, \(c.maxSteps) steps each, table up to \(c.tableCapacity) bytes")
      print(
        "link: payload \(c.maxPayload) bytes, window \(c.window); lease \(c.leaseMs) ms"
          + (c.eventQueue > 0 ? "; up to \(c.eventQueue) events pending" : ""))
      print("motor limits: \(c.motorMaxOnMs) ms continuous, \(c.motorMaxDutyPercent) % over \(c.motorDutyWindowMs) ms")
      if info.table == .none {
        print("pattern table: none")
      } else {
        print("pattern table: version \(info.table.version), \(info.table.size) bytes, crc \(hex32(info.table.crc))")
      }
    }
  }

  /// `callalert board status`.
  struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "status", abstract: "Show what the board is doing now.")
    @OptionGroup var port: PortOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let (client, _) = try await port.connect()
      let status = try await client.status()
      await client.close()
      if json { return try printJSON(BoardStatusJSON(status)) }
      print("uptime \(status.uptimeMs) ms")
      if status.token == 0 {
        print("idle")
      } else {
        let source = status.slot.map { "slot \($0)" } ?? "inline pattern"
        print(
          "playing token \(status.token) (\(source)) for \(status.elapsedMs) ms; cap in \(status.capRemainingMs) ms, lease in \(status.leaseRemainingMs) ms"
        )
      }
      print(
        "actuators: buzzer \(status.actuators.buzzerHz) Hz vol \(status.actuators.buzzerVolume), motors \(status.actuators.motors), LEDs \(status.actuators.leds)"
      )
      let c = status.counters
      print(
        "frames ok \(c.framesOK), crc errors \(c.crcErrors), framing errors \(c.framingErrors), overlong \(c.overlong), duplicates \(c.duplicates), faults \(c.faults)"
      )
    }
  }

  /// `callalert board stop`.
  struct Stop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "stop", abstract: "Stop one alert by token, or everything.")
    @OptionGroup var port: PortOptions
    @Option(
      parsing: .unconditional, help: "The alert's token; everything when absent.",
      transform: wholeNumber(in: 0...UInt32.max))
    var token: UInt32?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let (client, _) = try await port.connect()
      let count = try await client.stop(token: token ?? Command.stopAll)
      await client.close()
      if json { return try printJSON(["stopped": count] as [String: Int]) }
      print(count == 0 ? "nothing was playing" : "stopped")
    }
  }

  /// `callalert board reset`.
  struct Reset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reset", abstract: "Restart the board (it answers, then reboots).")
    @OptionGroup var port: PortOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let (client, _) = try await port.connect()
      _ = try await client.send(.reset)
      await client.close()
      if json { return try printJSON(["reset": true] as [String: Bool]) }
      print("board is restarting")
    }
  }

  /// `callalert board play`.
  struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "play",
      abstract: "Play a stored pattern or a tone, and wait until it ends (Ctrl-C stops it).",
      discussion: "The board stops by itself at the cap, or when this command dies (its lease lapses)."
    )
    @OptionGroup var port: PortOptions
    @Option(
      parsing: .unconditional, help: "A slot of the board's pattern table (0-63).",
      transform: wholeNumber(in: 0...63))
    var slot: UInt8?
    @Option(
      parsing: .unconditional, help: "A tone in Hz instead of a slot.", transform: wholeNumber(in: 1...20_000))
    var tone: UInt16?
    @Option(
      parsing: .unconditional, help: "The tone's length in ms.", transform: wholeNumber(in: 1...UInt16.max))
    var ms: UInt16 = 1_000
    @Option(parsing: .unconditional, help: "Buzzer volume 0-255 for --tone.", transform: wholeNumber(in: 0...255))
    var volume: UInt8 = 200
    @Option(parsing: .unconditional, help: "Motor intensity 0-255 for --tone.", transform: wholeNumber(in: 0...255))
    var motor: UInt8 = 0
    @Option(
      parsing: .unconditional, help: "The cap in ms (at most 30000).", transform: wholeNumber(in: 1...absoluteCapMs))
    var cap: UInt16 = absoluteCapMs
    @Option(
      parsing: .unconditional, help: "The alert's token (default: random).",
      transform: wholeNumber(in: 0...UInt32.max))
    var token: UInt32?
    @Flag(help: "Keep the buzzer silent (vibrate only).") var muteBuzzer = false
    @Flag(help: "Keep the motor still.") var muteMotor = false
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
      guard (slot == nil) != (tone == nil) else { throw ValidationError("give exactly one of --slot N or --tone HZ") }
      if token == 0 { throw ValidationError("--token 0 is reserved; use 1 or more") }
    }

    func run() async throws {
      let (client, _) = try await port.connect()
      let token = self.token ?? UInt32.random(in: 1...UInt32.max)
      let source: PatternSource =
        slot.map { .slot($0) }
        ?? .inline(
          Pattern(steps: [PatternStep(durationMs: ms, buzzerHz: tone ?? 0, buzzerVolume: volume, motor: motor)]))
      var options: PlayOptions = []
      if muteBuzzer { options.insert(.muteBuzzer) }
      if muteMotor { options.insert(.muteMotor) }
      let events = client.events
      let effectiveCap: UInt16
      do {
        effectiveCap = try await client.play(PlayRequest(token: token, capMs: cap, options: options, source: source))
      } catch {
        await client.close()
        throw CommandFailure("\(error)")
      }
      if !json { print("playing token \(token), cap \(effectiveCap) ms (Ctrl-C stops it)") }
      let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { Task { _ = try? await client.stop(token: token) } }
      defer { signals.cancel() }
      var ended: PlayEndedEvent?
      for await event in events {
        if case .event(.playEnded(let end)) = event, end.token == token {
          ended = end
          break
        }
        if case .disconnected(let reason) = event { throw CommandFailure("board disconnected: \(reason)") }
      }
      await client.close()
      guard let ended else { return }
      if json {
        try printJSON(
          PlayResultJSON(token: token, capMs: effectiveCap, reason: "\(ended.reason)", playedMs: ended.playedMs))
      } else {
        print("ended: \(ended.reason) after \(ended.playedMs) ms")
      }
    }
  }
}

/// The outcome of `board play` as JSON.
struct PlayResultJSON: Encodable {
  let token: UInt32
  let capMs: UInt16
  let reason: String
  let playedMs: UInt32
  enum CodingKeys: String, CodingKey { case token, capMs = "cap_ms", reason, playedMs = "played_ms" }
}
