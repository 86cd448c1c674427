/// A USB device's vendor and product id, as `lsusb` prints them (`27bb:3bca`).
public struct USBDeviceID: Equatable, Hashable, Sendable, CustomStringConvertible {
  /// The vendor id.
  public var vendor: UInt16
  /// The product id.
  public var product: UInt16

  /// Creates an id.
  public init(vendor: UInt16, product: UInt16) {
    self.vendor = vendor
    self.product = product
  }

  /// `vvvv:pppp` in lower-case hex.
  public var description: String {
    LightReport.hex(UInt8(vendor >> 8)) + LightReport.hex(UInt8(vendor & 0xFF)) + ":"
      + LightReport.hex(UInt8(product >> 8)) + LightReport.hex(UInt8(product & 0xFF))
  }
}
