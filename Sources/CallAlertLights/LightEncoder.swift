/// Turns what a light should do (show a colour, change its sound, stay alive, go dark) into the reports its
/// kind takes.
public struct LightEncoder: Equatable, Sendable {
  /// The kind of light the reports are for.
  public let kind: LightKind

  /// An encoder for `kind`.
  public init(kind: LightKind) {
    self.kind = kind
  }

  /// Shows `color` steadily (dark for a pause in a rhythm). On a Kuando, `sound` changes what the speaker
  /// plays; nil leaves it playing. The other kinds have no sound and ignore it.
  public func show(_ color: LightColor, sound: KuandoSound?) -> LightReport {
    switch kind {
    case .kuando:
      let step = KuandoStep.jump(target: 0, repeatCount: 0, color: color, onTenths: 0, offTenths: 0, sound: sound)
      var meaning = color.isDark ? "dark" : "show \(color.text)"
      if let sound {
        meaning +=
          sound.ringtone == .off || sound.volume == 0
          ? ", silent" : ", ring \(sound.ringtone.name) at volume \(sound.volume)"
      }
      return KuandoProgram(steps: [step]).report(meaning: meaning)
    case .blink1:
      return Blink1Command.set(color: color).report
    case .luxafor:
      return LuxaforCommand.color(led: .all, color: color).report
    case .embrava:
      return EmbravaCommand(color: color).report
    }
  }

  /// Dark and silent.
  public func off() -> LightReport {
    var report = show(.dark, sound: kind == .kuando ? .silence : nil)
    report.meaning = "off"
    return report
  }

  /// Keeps a light with a device timer lit for `timeoutMs` more (a Kuando's keepalive step, rounded down to
  /// whole seconds, 1 to 15; a blink(1)'s server tickle, which turns it dark when it lapses); nil for the
  /// kinds without one.
  public func keepAlive(timeoutMs: UInt32) -> LightReport? {
    switch kind {
    case .kuando:
      let seconds = Self.kuandoTimeoutSeconds(timeoutMs)
      return KuandoProgram(steps: [.keepAlive(timeoutSeconds: seconds)])
        .report(meaning: "keepalive: dark unless another report within \(seconds) s")
    case .blink1:
      let centiseconds = UInt16(clamping: timeoutMs / 10)
      return Blink1Command.serverTickle(on: true, centiseconds: centiseconds, stayLit: false, start: 0, end: 0).report
    case .luxafor, .embrava:
      return nil
    }
  }

  /// Lets a light with a host-armed timer go (a blink(1)'s server tickle off), so that it does not go dark
  /// by itself later; nil for the others.
  public func disarm() -> LightReport? {
    kind == .blink1
      ? Blink1Command.serverTickle(on: false, centiseconds: 0, stayLit: false, start: 0, end: 0).report : nil
  }

  /// A Kuando's watchdog in whole seconds: rounded down so it never outlasts `timeoutMs`, at least 1, at most 15.
  public static func kuandoTimeoutSeconds(_ timeoutMs: UInt32) -> UInt8 {
    UInt8(max(1, min(UInt32(KuandoStep.maximumTimeoutSeconds), timeoutMs / 1_000)))
  }
}
