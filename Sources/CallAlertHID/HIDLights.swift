import CHIDAPI
import CallAlertLights

/// The lights on the USB bus, as hidapi enumerates them.
public enum HIDLights {
  /// Every hidraw node of a light of a known kind (a light may have several, one per interface).
  public static func discover() -> [HIDLightInfo] {
    guard HIDLibrary.isReady, let list = hid_enumerate(0, 0) else { return [] }
    defer { hid_free_enumeration(list) }
    var found: [HIDLightInfo] = []
    var entry: UnsafeMutablePointer<hid_device_info>? = list
    while let info = entry?.pointee {
      let id = USBDeviceID(vendor: info.vendor_id, product: info.product_id)
      if let kind = LightKind.of(id), let path = info.path.map({ String(cString: $0) }),
        !found.contains(where: { $0.path == path })
      {
        found.append(
          HIDLightInfo(
            kind: kind, id: id, path: path, serialNumber: HIDLibrary.string(info.serial_number),
            product: HIDLibrary.string(info.product_string), interfaceNumber: info.interface_number))
      }
      entry = info.next
    }
    return found
  }
}

/// hidapi's global state.
enum HIDLibrary {
  /// hid_init, run once (hidapi's own lazy start is not thread-safe).
  static let isReady: Bool = hid_init() == 0

  /// hidapi's last error for `device` (nil: the global one), as text.
  static func lastError(_ device: OpaquePointer?) -> String {
    string(hid_error(device)) ?? "unknown error"
  }

  /// A wide C string as a String; nil for a null or empty one.
  static func string(_ wide: UnsafePointer<wchar_t>?) -> String? {
    guard let wide else { return nil }
    var scalars = String.UnicodeScalarView()
    var index = 0
    while wide[index] != 0 {
      if let scalar = Unicode.Scalar(UInt32(bitPattern: wide[index])) { scalars.append(scalar) }
      index += 1
    }
    return scalars.isEmpty ? nil : String(scalars)
  }
}
