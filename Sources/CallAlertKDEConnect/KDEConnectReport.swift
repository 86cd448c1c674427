/// Something the KDE Connect source did, for the log (and, with a device's new status, for an event line).
public struct KDEConnectReport: Sendable {
  /// How loud.
  public enum Level: Sendable {
    case debug, info, notice, warning
  }

  /// How loud.
  public var level: Level
  /// What happened.
  public var message: String
  /// The device whose status changed with it, if one did.
  public var changed: KDEConnectDeviceStatus?

  /// Creates a report.
  public init(_ level: Level, _ message: String, changed: KDEConnectDeviceStatus? = nil) {
    self.level = level
    self.message = message
    self.changed = changed
  }
}
