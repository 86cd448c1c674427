import CallAlertProtocol

/// The board's actuators and inputs as the portable core sees them.
///
/// A firmware implements it over GPIO, PWM timers and a TRNG; a virtual board and the tests implement it
/// in memory. The core never reads a clock: every call carries the time it was given.
public protocol BoardHardware {
  /// Drives every actuator to `state` from `nowMs` on.
  ///
  /// Called only when the state changes, plus once at boot so that the hardware starts from a known,
  /// silent state whatever it did before the reset.
  mutating func apply(_ state: ActuatorState, nowMs: UInt64)

  /// The raw button levels: bit n is set while button n is pressed. The core debounces them, so this
  /// should be the plain pin state, not a filtered one.
  func buttonLevels() -> UInt8

  /// A random value for the boot nonce. It must differ from boot to boot (a TRNG, ADC noise, or a hash
  /// of uninitialised RAM), or the host cannot tell that the board restarted.
  mutating func entropy() -> UInt32
}
