/// Every actuator's state at one moment.
///
/// Layout, 5 + n bytes: buzzer_hz u16 (0 = silent), buzzer_volume u8, leds u8 (bit n = LED n lit),
/// motor_count u8 (0-8), then one intensity byte per motor.
public struct ActuatorState: Equatable, Sendable {
  /// The most motors a state can describe.
  public static let maxMotors = 8

  /// The buzzer's frequency; 0 when silent.
  public var buzzerHz: UInt16
  /// The buzzer's volume; 0 when silent.
  public var buzzerVolume: UInt8
  /// Lit LEDs, one bit each.
  public var leds: UInt8
  /// Each motor's intensity.
  public var motors: [UInt8]

  /// Creates a state.
  public init(buzzerHz: UInt16 = 0, buzzerVolume: UInt8 = 0, leds: UInt8 = 0, motors: [UInt8] = []) {
    self.buzzerHz = buzzerHz
    self.buzzerVolume = buzzerVolume
    self.leds = leds
    self.motors = motors
  }

  /// Everything off, with `motorCount` motors.
  public static func off(motorCount: Int) -> ActuatorState {
    ActuatorState(motors: Array(repeating: 0, count: motorCount))
  }

  /// Whether the buzzer sounds or any motor runs (LEDs do not count: they only show).
  public var isAlerting: Bool { (buzzerHz != 0 && buzzerVolume != 0) || motors.contains { $0 != 0 } }

  func encode(into writer: inout ByteWriter) {
    writer.u16(buzzerHz)
    writer.u8(buzzerVolume)
    writer.u8(leds)
    writer.u8(UInt8(truncatingIfNeeded: motors.count))
    writer.append(motors)
  }

  static func decode(_ r: inout ByteReader) throws(PayloadError) -> ActuatorState {
    let hz = try r.u16("buzzer_hz")
    let volume = try r.u8("buzzer_volume")
    let leds = try r.u8("leds")
    let count = try r.u8("motor_count")
    guard Int(count) <= maxMotors else { throw r.invalid("motor_count", width: 1) }
    return ActuatorState(buzzerHz: hz, buzzerVolume: volume, leds: leds, motors: try r.bytes(Int(count), "motors"))
  }
}

/// ACTUATORS, an unacknowledged notification: the board's clock and every actuator after a change.
/// Layout: board_ms u32, then an ``ActuatorState``.
public struct ActuatorTrace: Equatable, Sendable {
  /// The board's millisecond clock at the change.
  public var boardMs: UInt32
  /// The state from that moment on.
  public var state: ActuatorState

  /// Creates a trace point.
  public init(boardMs: UInt32, state: ActuatorState) {
    self.boardMs = boardMs
    self.state = state
  }
}
