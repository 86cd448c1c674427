import BoardSupport
import CallAlertBoardCore
import CallAlertProtocol

/// The actuators and button as registers (board.h's `board_io_t` and the FPGA LED register): a real board
/// maps the same calls onto PWM timers (buzzer tone and volume, motor intensity) and GPIO (LEDs, button).
struct MappedHardware: BoardHardware {
  mutating func apply(_ state: ActuatorState, nowMs: UInt64) {
    state.motors.withUnsafeBufferPointer { motors in
      board_apply(
        UInt32(state.buzzerHz), UInt32(state.buzzerVolume), UInt32(state.leds), motors.baseAddress,
        UInt32(motors.count))
    }
  }

  func buttonLevels() -> UInt8 { UInt8(truncatingIfNeeded: board_buttons()) }

  mutating func entropy() -> UInt32 { board_entropy() }
}
