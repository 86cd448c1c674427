import CallAlertBoardCore
import CallAlertProtocol

/// The board's firmware core on virtual hardware: the same code as the firmware, with its actuators on a
/// timeline, its flash in memory (or a file), and reboots and power cuts at the caller's command.
///
/// Time is the caller's: every call takes the board's clock in milliseconds, which runs on across reboots
/// (a rebooted core reports uptime from its own boot). Not thread-safe: one owner drives it.
public final class VirtualBoard {
  /// The core type this board runs.
  public typealias Core = BoardCore<VirtualHardware, VirtualFlash>

  /// The configuration every boot uses.
  public let configuration: BoardConfiguration
  /// The actuators and button.
  public let hardware: VirtualHardware
  /// The pattern flash, kept across reboots.
  public let flash: VirtualFlash
  /// The running core.
  public private(set) var core: Core
  /// Boots so far, the first included.
  public private(set) var bootCount = 1
  /// Bytes the core produced for the host and not yet taken.
  private var pending: [UInt8] = []
  /// Called with the playing token whenever it changes (nil: nothing plays), so tests can wait for "a call
  /// rings" and "nothing rings" as events, independent of a pattern's own silent steps.
  public var onPlaybackChange: ((UInt32?) -> Void)?
  private var lastToken: UInt32?
  /// Called when the host has acknowledged every event the board raised (none waits or is in flight any
  /// more): the host has heard all the board had to say, so a bench can start its next step from quiet.
  public var onEventsAcknowledged: (() -> Void)?
  private var hadUnacknowledgedEvents = false

  /// Boots a board at `nowMs` (power-on); its timeline keeps the most recent `timelineCapacity` changes.
  public init(
    configuration: BoardConfiguration = .virtualDefault, flash: VirtualFlash = VirtualFlash(), seed: UInt64 = 1,
    nowMs: UInt64 = 0, timelineCapacity: Int = ActuatorTimeline.defaultCapacity
  ) {
    self.configuration = configuration
    self.flash = flash
    hardware = VirtualHardware(
      motorCount: Int(configuration.motorChannels), seed: seed, timelineCapacity: timelineCapacity)
    core = Core(configuration: configuration, hardware: hardware, flash: flash, nowMs: nowMs, bootReason: .powerOn)
    collect()
  }

  /// What plays now (its token); nil when nothing does. A ring's own silent steps still play.
  public var playingToken: UInt32? { core.playingToken }

  /// The actuators now.
  public var actuators: ActuatorState { hardware.actuators }
  /// Every actuator change so far.
  public var timeline: ActuatorTimeline { hardware.timeline }
  /// The current boot's nonce.
  public var nonce: UInt32 { core.nonce }
  /// When the board next needs ``tick(nowMs:)``, if anything is scheduled.
  public var nextWakeMs: UInt64? { core.nextWakeMs }

  /// Takes bytes from the host.
  public func receive(_ bytes: some Sequence<UInt8>, nowMs: UInt64) {
    core.receive(bytes, nowMs: nowMs)
    collect()
    if flash.powerLost { return powerCut(nowMs: nowMs, restoreMs: nowMs) }
    // The firmware sends RESET's answer before it restarts, so that answer is kept.
    if core.resetRequested { restart(nowMs: nowMs, reason: .resetCommand, keepingOutput: true) }
  }

  /// Advances the board's clock: patterns step, caps and leases expire, events retransmit.
  public func tick(nowMs: UInt64) {
    core.tick(nowMs: nowMs)
    collect()
    if flash.powerLost { powerCut(nowMs: nowMs, restoreMs: nowMs) }
  }

  /// Hands over the bytes for the host.
  public func takeOutput() -> [UInt8] {
    defer { pending.removeAll(keepingCapacity: true) }
    return pending
  }

  /// Presses (`down`) or releases button `index`; the core sees it at its next tick.
  public func setButton(_ index: Int = 0, down: Bool, nowMs: UInt64) {
    if down { hardware.buttons |= 1 << UInt8(index) } else { hardware.buttons &= ~(1 << UInt8(index)) }
    tick(nowMs: nowMs)
  }

  /// Restarts the core on the same flash, as a reset does: fresh nonce, BOOT event, table re-mounted.
  /// Bytes not yet taken are lost, as a UART's are.
  public func reboot(nowMs: UInt64, reason: BootReason = .watchdog) {
    restart(nowMs: nowMs, reason: reason, keepingOutput: false)
  }

  private func restart(nowMs: UInt64, reason: BootReason, keepingOutput: Bool) {
    if !keepingOutput { pending.removeAll() }
    flash.restorePower()
    bootCount += 1
    core = Core(configuration: configuration, hardware: hardware, flash: flash, nowMs: nowMs, bootReason: reason)
    collect()
  }

  /// Cuts the power at `nowMs`: every actuator stops at once and the board boots again (power-on) at
  /// `restoreMs`, keeping only what the flash held. An injected flash power cut
  /// (``VirtualFlash/powerCutAfterProgrammedBytes``) triggers this by itself.
  public func powerCut(nowMs: UInt64, restoreMs: UInt64) {
    hardware.powerOff(atMs: nowMs)
    pending.removeAll()
    flash.restorePower()
    bootCount += 1
    core = Core(configuration: configuration, hardware: hardware, flash: flash, nowMs: restoreMs, bootReason: .powerOn)
    collect()
  }

  private func collect() {
    pending.append(contentsOf: core.takeOutput())
    if core.playingToken != lastToken {
      lastToken = core.playingToken
      onPlaybackChange?(lastToken)
    }
    let unacknowledged = core.unacknowledgedEvents > 0
    if hadUnacknowledgedEvents && !unacknowledged { onEventsAcknowledged?() }
    hadUnacknowledgedEvents = unacknowledged
  }
}

extension BoardConfiguration {
  /// The virtual board's identity and capabilities: the reference board's defaults with serial "VB-0001".
  public static var virtualDefault: BoardConfiguration {
    BoardConfiguration(serial: Array("VB-0001".utf8), firmware: .init(major: 0, minor: 1, patch: 0))
  }
}
