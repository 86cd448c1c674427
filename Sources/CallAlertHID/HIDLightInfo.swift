import CallAlertLights

/// A light hidapi found: one of its hidraw nodes, with what the USB descriptors say about it.
public struct HIDLightInfo: Equatable, Sendable {
  /// Its kind, from its vendor and product id.
  public var kind: LightKind
  /// Its vendor and product id.
  public var id: USBDeviceID
  /// The hidraw node (`/dev/hidraw3`).
  public var path: String
  /// Its USB serial number, when it has one.
  public var serialNumber: String?
  /// Its USB product name, when it has one.
  public var product: String?
  /// The USB interface the node belongs to (-1: unknown).
  public var interfaceNumber: Int32

  /// Creates a description.
  public init(
    kind: LightKind, id: USBDeviceID, path: String, serialNumber: String? = nil, product: String? = nil,
    interfaceNumber: Int32 = -1
  ) {
    self.kind = kind
    self.id = id
    self.path = path
    self.serialNumber = serialNumber
    self.product = product
    self.interfaceNumber = interfaceNumber
  }

  /// `Kuando Busylight 27bb:3bcd at /dev/hidraw3`, for the log.
  public var label: String { "\(kind.displayName) \(id) at \(path)" }
}
