import CallAlertLights

/// What a configured board is: a CallAlert board on a serial port (the default) or a USB light.
public enum BoardKind: Equatable, Sendable {
  /// A CallAlert board, spoken to in its protocol over a serial port.
  case serial
  /// A USB presence light, written HID reports.
  case light(LightKind)

  /// The names the config's `kind:` takes, in the order its errors list them.
  public static let names: [(String, BoardKind)] =
    [("serial", .serial)] + LightKind.allCases.map { ($0.rawValue, .light($0)) }

  /// The light's kind, for a light.
  public var lightKind: LightKind? {
    if case .light(let kind) = self { kind } else { nil }
  }
}
