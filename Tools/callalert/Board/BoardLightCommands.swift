import ArgumentParser
import CallAlertHID
import CallAlertLights
import CallAlertPatterns
import CallAlertProtocol
import CallAlertSimulation
import CallAlertText
// Full Foundation, not FoundationEssentials: FileHandle.
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension LightKind: ExpressibleByArgument {}

extension CallAlertCommand.Board {
  /// `callalert board light`: one report to a real light, to check it works and is reachable.
  struct Light: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "light",
      abstract: "Show a colour on a USB light (or turn it off), to check it works.",
      discussion: """
        Finds the light by --path (its hidraw node), else by --serial, else takes the first of its kind, and \
        writes the reports the daemon would: the colour (a Kuando also rings with --ringtone), the keepalive of \
        a light with a device timer, which then goes dark by itself after --seconds; --off turns it off.
        """)

    @Option(help: "The light's kind: kuando, blink1, luxafor, embrava.") var kind: LightKind
    @Option(help: ArgumentHelp("The light's hidraw node.", valueName: "path")) var path: String?
    @Option(help: "The light's USB serial number.") var serial: String?
    @Option(help: "A colour: red, green, blue, yellow, orange, purple, cyan, white or #rrggbb.") var color = "red"
    @Option(help: "A Kuando ringtone (e.g. telephoneNordic); none: silent.") var ringtone: String?
    @Option(help: "The ringtone's volume, 0-7.") var volume: UInt8 = 4
    @Option(help: "How long a light with a device timer stays lit, 1-15 s.") var seconds: UInt32 = 3
    @Flag(help: "Turn the light off.") var off = false

    func validate() throws {
      if LightColor(text: color) == nil { throw ValidationError("--color '\(color)' is not a colour") }
      if let ringtone, KuandoRingtone(name: ringtone) == nil {
        let names = KuandoRingtone.allCases.map(\.name).joined(separator: ", ")
        throw ValidationError("--ringtone '\(ringtone)' is not one of \(names)")
      }
      if ringtone != nil && kind != .kuando { throw ValidationError("--ringtone is for a Kuando (--kind kuando)") }
      if volume > KuandoSound.maximumVolume { throw ValidationError("--volume must be 0 to 7") }
      if seconds < 1 || seconds > 15 { throw ValidationError("--seconds must be 1 to 15") }
    }

    func run() async throws {
      let light: HIDLight
      do { light = try HIDLight.open(kind: kind, path: path, serialNumber: serial) } catch {
        throw CommandFailure(error.description)
      }
      defer { light.close() }
      let encoder = LightEncoder(kind: kind)
      var reports: [LightReport]
      if off {
        reports = [encoder.off()] + (encoder.disarm().map { [$0] } ?? [])
      } else {
        let sound = ringtone.flatMap(KuandoRingtone.init(name:)).map { KuandoSound(ringtone: $0, volume: volume) }
        reports = [encoder.show(LightColor(text: color) ?? .dark, sound: kind.playsSound ? sound ?? .silence : nil)]
        if let keepAlive = encoder.keepAlive(timeoutMs: seconds * 1_000) { reports.append(keepAlive) }
      }
      for report in reports {
        do { try light.send(report) } catch { throw CommandFailure(error.description) }
        print("\(light.name): \(report.channel.rawValue) report \(report.hex)  \(report.meaning)")
      }
    }
  }

  /// `callalert board simulate --kind`: a virtual light playing a ring, shown live.
  struct SimulateLight {
    let kind: LightKind
    let pattern: String
    let timeline: String?
    let color: LightColor
    let ringtone: KuandoRingtone
    let volume: UInt8
    let capMs: UInt32

    /// Plays one ring of `pattern` on a virtual light until the cap or SIGINT/SIGTERM (the hangup), then lets
    /// the light go as the daemon does at exit; each report is printed as it is received, and written to the
    /// timeline as a JSON line.
    func run() async throws {
      guard let definition = BuiltInPatterns.named(pattern) else {
        throw ValidationError(
          "--pattern '\(pattern)' is not a built-in pattern; `callalert patterns list` names them")
      }
      var looped = definition.pattern
      looped.repeatCount = Pattern.repeatForever
      let clock = ContinuousClock()
      let light = try VirtualLight(
        kind: kind, name: "virtual \(kind.displayName)", timeline: timeline, clock: clock,
        onReceive: { received in
          let seconds = PrintfText.format("%9.3f s", Double(received.ms) / 1_000)
          print(
            "\(seconds)  \(received.report.channel.rawValue) \(received.report.hex.prefix(24))  \(received.meaning)")
        })
      FileHandle.standardError.write(
        Data("virtual \(kind.displayName): ringing '\(pattern)' for \(capMs / 1_000) s (Ctrl-C hangs up)\n".utf8))
      let hungUp = Mutex(false)
      let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { hungUp.withLock { $0 = true } }
      defer { signals.cancel() }
      var player = LightPlayer(kind: kind, deviceTimeoutMs: 3_000)
      let start = clock.now
      let sound = kind.playsSound ? KuandoSound(ringtone: ringtone, volume: volume) : nil
      let ring = LightPlayer.Ring(token: 1, rhythm: LightRhythm(looped), color: color, sound: sound, capMs: capMs)
      try send(player.play(ring, now: 0), to: light)
      while let deadline = player.nextDeadlineMs, !hungUp.withLock({ $0 }) {
        // Short naps so that Ctrl-C is seen within 50 ms; the player is only woken at its deadlines.
        let due = start.advanced(by: .milliseconds(Int64(deadline)))
        try await clock.sleep(until: min(due, clock.now.advanced(by: .milliseconds(50))), tolerance: nil)
        guard clock.now >= due else { continue }
        try send(player.advance(to: UInt64(deadline)), to: light)
      }
      try send(player.stop(token: 1, now: UInt64(start.duration(to: clock.now) / .milliseconds(1))), to: light)
      try send(player.shutDown(), to: light)
      light.close()
    }

    private func send(_ output: LightPlayer.Output, to light: VirtualLight<ContinuousClock>) throws {
      for report in output.reports { try light.send(report) }
    }
  }
}
