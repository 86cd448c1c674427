import CallAlertBoardCore
import CallAlertProtocol

/// The board's actuators and button as plain memory: what the core drives is recorded on a timeline, and
/// the button is pressed by whoever holds the hardware (a test, the terminal).
///
/// A reference type so that the virtual board, which owns the core, can still read the timeline and move
/// the button while the core holds the hardware.
public final class VirtualHardware: BoardHardware {
  /// Every actuator change the core made, in board milliseconds (the most recent, see
  /// ``ActuatorTimeline/capacity``).
  public private(set) var timeline: ActuatorTimeline
  /// The actuators now.
  public private(set) var actuators: ActuatorState
  /// Raw button levels, bit n = button n held down.
  public var buttons: UInt8 = 0
  /// Called after every actuator change, e.g. to print the status line or write the timeline file.
  public var onChange: ((ActuatorTimeline.Entry) -> Void)?
  private var random: SplitMix64

  /// Creates hardware with `motorCount` motors; `seed` feeds the boot nonces; the timeline keeps the most
  /// recent `timelineCapacity` changes.
  public init(motorCount: Int, seed: UInt64, timelineCapacity: Int = ActuatorTimeline.defaultCapacity) {
    timeline = ActuatorTimeline(capacity: timelineCapacity)
    actuators = .off(motorCount: motorCount)
    random = SplitMix64(seed: seed)
  }

  /// Records the new state.
  public func apply(_ state: ActuatorState, nowMs: UInt64) {
    actuators = state
    if timeline.record(state, at: nowMs) { onChange?(ActuatorTimeline.Entry(ms: nowMs, state: state)) }
  }

  /// The button levels set by ``buttons``.
  public func buttonLevels() -> UInt8 { buttons }

  /// A nonce seed: seeded, so runs repeat; distinct on every call, so every boot gets a fresh nonce.
  public func entropy() -> UInt32 { UInt32(truncatingIfNeeded: random.next()) }

  /// Every actuator off, as at a power cut (the core is gone, so nothing else will turn them off).
  func powerOff(atMs ms: UInt64) {
    let off = ActuatorState.off(motorCount: actuators.motors.count)
    actuators = off
    if timeline.record(off, at: ms) { onChange?(ActuatorTimeline.Entry(ms: ms, state: off)) }
  }
}
