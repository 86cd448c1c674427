import ArgumentParser
import CallAlertEngine
import CallAlertValues
import Logging

// The closed sets of values the commands take, typed: ArgumentParser lists them in the help and refuses any
// other value with the list, so no command compares strings itself.

extension EventsFormat: ExpressibleByArgument {}

extension InterruptionLevel: ExpressibleByArgument {}

extension DoNotDisturbMode: ExpressibleByArgument {
  /// on, off, scheduled.
  public static var allValueStrings: [String] { ["on", "off", "scheduled"] }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// `on` or `off`, for switches such as `notify silent`.
enum Switch: String, CaseIterable, ExpressibleByArgument {
  /// Switched on.
  case on
  /// Switched off.
  case off

  /// Whether it is on.
  var isOn: Bool { self == .on }
}

/// Reads a whole-number option within `range`, saying the range when the value is not one (ArgumentParser
/// names the option and the value: "The value '-5' is invalid for '--ms <ms>': use a whole number from 1 to
/// 65535"). Numeric options take it with `parsing: .unconditional`,
/// so a negative number reaches it: ArgumentParser read `-5` as an option and said "Missing value for '--ms'".
func wholeNumber<T: FixedWidthInteger & Sendable>(in range: ClosedRange<T>) -> @Sendable (String) throws -> T {
  { text in
    guard let value = T(text), range.contains(value) else {
      throw ValidationError("use a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return value
  }
}
