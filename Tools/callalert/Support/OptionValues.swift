import ArgumentParser
import CallAlertEngine
import CallAlertInputs
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
