import CallAlertLights

/// How the daemon reaches a board that is a USB light: its kind, how it shows calls, and how to open it (a
/// real light through hidapi, or a virtual one).
public struct LightConnection: Sendable {
  /// The light's kind.
  public var kind: LightKind
  /// How it shows calls.
  public var appearance: LightAppearance
  /// Opens it; throws when it is not there.
  public var open: @Sendable () async throws -> any LightDevice

  /// Creates a connection.
  public init(
    kind: LightKind, appearance: LightAppearance, open: @escaping @Sendable () async throws -> any LightDevice
  ) {
    self.kind = kind
    self.appearance = appearance
    self.open = open
  }
}
