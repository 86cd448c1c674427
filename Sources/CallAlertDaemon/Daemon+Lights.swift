import CallAlertEngine
import CallAlertHID
import CallAlertLights

extension Daemon {
  /// Opens a configured light through hidapi: its hidraw path (`port:`), its serial number, or the first
  /// light of its kind.
  static func lightOpener(for board: AlertBoard, kind: LightKind) -> @Sendable () async throws -> any LightDevice {
    { @Sendable in try HIDLight.open(kind: kind, path: board.port, serialNumber: board.serialNumber) }
  }
}
