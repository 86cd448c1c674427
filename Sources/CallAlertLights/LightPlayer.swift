import CallAlertProtocol

/// A light playing calls: a pure state machine, `(state, input, now) -> (state, reports)`, as the board
/// core is. It steps through a pattern's rhythm in the ring's colour (a Kuando also plays a ringtone),
/// ends a ring at its cap or when the pattern ends, shows the missed-call indicator in between, and keeps a
/// light with a device timer alive only while it shows something, so that a host that dies leaves it dark
/// within ``deviceTimeoutMs``.
///
/// Time is milliseconds on any monotonic scale the caller chooses; ``nextDeadlineMs`` says when to call
/// ``advance(to:)`` next.
public struct LightPlayer: Sendable {
  /// A ring to play.
  public struct Ring: Equatable, Sendable {
    /// The host's name for it, as PLAY's token.
    public var token: UInt32
    /// Its rhythm.
    public var rhythm: LightRhythm
    /// The colour of its lit steps.
    public var color: LightColor
    /// On a Kuando, what the speaker plays for the whole ring; nil: light only.
    public var sound: KuandoSound?
    /// The longest it plays, 1 to 30 000 ms (0 or more means 30 000, as PLAY's cap).
    public var capMs: UInt32

    /// Creates a ring.
    public init(token: UInt32, rhythm: LightRhythm, color: LightColor, sound: KuandoSound?, capMs: UInt32) {
      self.token = token
      self.rhythm = rhythm
      self.color = color
      self.sound = sound
      self.capMs = capMs == 0 || capMs > UInt32(absoluteCapMs) ? UInt32(absoluteCapMs) : capMs
    }
  }

  /// The missed-call indicator as a light shows it.
  public struct Indicator: Equatable, Sendable {
    /// Its colour.
    public var color: LightColor
    /// Lit time of a blink; 0 with ``offMs`` 0: steady.
    public var onMs: UInt32
    /// Dark time of a blink.
    public var offMs: UInt32

    /// Creates an indicator; steady unless both times are set.
    public init(color: LightColor, onMs: UInt32 = 0, offMs: UInt32 = 0) {
      self.color = color
      self.onMs = onMs
      self.offMs = offMs
    }

    var blinks: Bool { onMs > 0 && offMs > 0 }
  }

  /// A ring that ended, as the board's PLAY_ENDED says it.
  public struct Ended: Equatable, Sendable {
    /// Its token.
    public var token: UInt32
    /// Why.
    public var reason: PlayEndReason

    /// Creates an end.
    public init(token: UInt32, reason: PlayEndReason) {
      self.token = token
      self.reason = reason
    }
  }

  /// What an input did: the reports to write, in order, and the rings that ended.
  public struct Output: Equatable, Sendable {
    /// Reports to write now, in order.
    public var reports: [LightReport] = []
    /// Rings that ended.
    public var ended: [Ended] = []
  }

  private struct Progress: Equatable, Sendable {
    var ring: Ring
    var capAtMs: UInt64
    var index: Int
    var segmentEndsAtMs: UInt64
    var passesLeft: UInt8
  }

  /// The reports' encoder.
  public let encoder: LightEncoder
  /// How long a light with a device timer stays lit without hearing from the host.
  public let deviceTimeoutMs: UInt32
  private var progress: Progress?
  private var indicator: Indicator?
  private var indicatorLit = false
  private var indicatorTurnsAtMs: UInt64?
  /// The colour the light shows, as far as the player knows; nil: unknown (nothing sent yet).
  private var shown: LightColor?
  private var nextKeepAliveAtMs: UInt64?

  /// A player for a light of `kind` whose device timer (if it has one) lapses after `deviceTimeoutMs`; pass
  /// no more than the board lease.
  public init(kind: LightKind, deviceTimeoutMs: UInt32) {
    encoder = LightEncoder(kind: kind)
    self.deviceTimeoutMs = max(1_000, deviceTimeoutMs)
  }

  /// How often a keepalive goes out while the light shows something: a third of the timeout, so that two
  /// may go missing (as the board lease is renewed).
  public var keepAliveIntervalMs: UInt32 {
    switch encoder.kind {
    case .kuando: UInt32(LightEncoder.kuandoTimeoutSeconds(deviceTimeoutMs)) * 1_000 / 3
    default: deviceTimeoutMs / 3
    }
  }

  /// The token of the ring that plays; nil when none does.
  public var playingToken: UInt32? { progress?.ring.token }

  /// When to call ``advance(to:)`` next; nil: nothing is due.
  public var nextDeadlineMs: UInt64? {
    [progress?.segmentEndsAtMs, progress?.capAtMs, progress == nil ? indicatorTurnsAtMs : nil, nextKeepAliveAtMs]
      .compactMap { $0 }.min()
  }

  /// Starts `ring`, ending the one that plays (superseded).
  public mutating func play(_ ring: Ring, now: UInt64) -> Output {
    var output = Output()
    if let playing = progress { output.ended.append(Ended(token: playing.ring.token, reason: .superseded)) }
    guard let first = ring.rhythm.segments.first else {
      progress = nil
      output.ended.append(Ended(token: ring.token, reason: .completed))
      output.reports += showIdle(now: now)
      return output
    }
    progress = Progress(
      ring: ring, capAtMs: now + UInt64(ring.capMs), index: 0, segmentEndsAtMs: now + UInt64(first.durationMs),
      passesLeft: ring.rhythm.repeatCount)
    // The ring's sound is set once at its start (silence without one, ending a tone still playing); its
    // rhythm's steps then leave the speaker alone.
    let sound: KuandoSound? = encoder.kind.playsSound ? (ring.sound ?? .silence) : nil
    output.reports += show(first.lit ? ring.color : .dark, sound: sound, force: true)
    output.reports += keepAliveIfDue(now: now, force: true)
    return output
  }

  /// Stops the ring with `token` (``CallAlertProtocol/Command/stopAll``: whatever plays).
  public mutating func stop(token: UInt32, now: UInt64) -> Output {
    var output = Output()
    guard let playing = progress, token == Command.stopAll || token == playing.ring.token else { return output }
    progress = nil
    output.ended.append(Ended(token: playing.ring.token, reason: .stopped))
    output.reports += showIdle(now: now)
    return output
  }

  /// Shows `indicator` while no ring plays (nil: none).
  public mutating func setIndicator(_ indicator: Indicator?, now: UInt64) -> Output {
    // The same indicator again (the engine repeats it when a board comes back) changes nothing on the light.
    let unchanged = indicator == self.indicator && shown != nil
    self.indicator = indicator
    guard progress == nil, !unchanged else { return Output() }
    return Output(reports: showIdle(now: now))
  }

  /// Moves time on to `now`: the rhythm's next step, the cap, the indicator's blink, the keepalive.
  public mutating func advance(to now: UInt64) -> Output {
    var output = Output()
    if var playing = progress {
      if now >= playing.capAtMs {
        progress = nil
        output.ended.append(Ended(token: playing.ring.token, reason: .cap))
        output.reports += showIdle(now: now)
      } else {
        var completed = false
        while now >= playing.segmentEndsAtMs {
          guard let next = nextIndex(after: &playing) else {
            completed = true
            break
          }
          playing.index = next
          playing.segmentEndsAtMs += UInt64(playing.ring.rhythm.segments[next].durationMs)
        }
        if completed {
          progress = nil
          output.ended.append(Ended(token: playing.ring.token, reason: .completed))
          output.reports += showIdle(now: now)
        } else {
          progress = playing
          let lit = playing.ring.rhythm.segments[playing.index].lit
          output.reports += show(lit ? playing.ring.color : .dark, sound: nil)
        }
      }
    } else if let indicator, let turnsAt = indicatorTurnsAtMs, now >= turnsAt {
      indicatorLit.toggle()
      let phaseMs = UInt64(indicatorLit ? indicator.onMs : indicator.offMs)
      // After a long gap (a suspended host) the blink starts afresh rather than catching up.
      indicatorTurnsAtMs = turnsAt + phaseMs > now ? turnsAt + phaseMs : now + phaseMs
      output.reports += show(indicatorLit ? indicator.color : .dark, sound: nil)
    }
    output.reports += keepAliveIfDue(now: now, force: false)
    return output
  }

  /// What to send when the host lets the light go (shutdown, the daemon's exit): dark, silent, and a
  /// blink(1)'s tickle off so that it does not act on its own later.
  public mutating func shutDown() -> Output {
    var output = Output()
    if let playing = progress { output.ended.append(Ended(token: playing.ring.token, reason: .stopped)) }
    progress = nil
    indicator = nil
    indicatorTurnsAtMs = nil
    nextKeepAliveAtMs = nil
    shown = .dark
    output.reports.append(encoder.off())
    if let disarm = encoder.disarm() { output.reports.append(disarm) }
    return output
  }

  // MARK: - Steps

  /// The step after `playing`'s, looping as the pattern says; nil when the pattern is over.
  private func nextIndex(after playing: inout Progress) -> Int? {
    let rhythm = playing.ring.rhythm
    if playing.index + 1 < rhythm.segments.count { return playing.index + 1 }
    if rhythm.isEndless { return rhythm.loopStart }
    guard playing.passesLeft > 0 else { return nil }
    playing.passesLeft -= 1
    return rhythm.loopStart
  }

  /// The light between rings: the indicator, else off (silent, and a blink(1)'s tickle off: nothing shows,
  /// so nothing needs keeping alive).
  private mutating func showIdle(now: UInt64) -> [LightReport] {
    guard let indicator else {
      indicatorTurnsAtMs = nil
      nextKeepAliveAtMs = nil
      shown = .dark
      return [encoder.off()] + (encoder.disarm().map { [$0] } ?? [])
    }
    indicatorLit = true
    indicatorTurnsAtMs = indicator.blinks ? now + UInt64(indicator.onMs) : nil
    var reports = show(indicator.color, sound: encoder.kind.playsSound ? .silence : nil, force: true)
    reports += keepAliveIfDue(now: now, force: nextKeepAliveAtMs == nil)
    return reports
  }

  /// The report showing `color`; none when the light already shows it and nothing else changes.
  private mutating func show(_ color: LightColor, sound: KuandoSound?, force: Bool = false) -> [LightReport] {
    guard force || sound != nil || shown != color else { return [] }
    shown = color
    return [encoder.show(color, sound: sound)]
  }

  /// The keepalive when it is due (or `force`d, arming the timer at once); it stays due while something shows.
  private mutating func keepAliveIfDue(now: UInt64, force: Bool) -> [LightReport] {
    guard encoder.kind.hasDeviceTimer else { return [] }
    let showing = progress != nil || indicator != nil
    guard showing else {
      nextKeepAliveAtMs = nil
      return []
    }
    if !force, let due = nextKeepAliveAtMs, now < due { return [] }
    guard let report = encoder.keepAlive(timeoutMs: deviceTimeoutMs) else { return [] }
    let interval = UInt64(keepAliveIntervalMs)
    if !force, let due = nextKeepAliveAtMs, due + interval > now {
      nextKeepAliveAtMs = due + interval
    } else {
      nextKeepAliveAtMs = now + interval
    }
    return [report]
  }
}
