import CSerialPort

/// A serial port found on this machine, with what libserialport reads about it from sysfs.
///
/// Pseudo-terminals are never listed: libserialport only enumerates `/sys/class/tty` entries backed by a
/// device.
public struct SerialPortInfo: Hashable, Sendable {
  /// How a port is attached to the machine.
  public enum Transport: String, Hashable, Sendable {
    /// A built-in UART (ttyS*, ttyAMA*) or anything not recognised as USB or Bluetooth.
    case native
    /// A USB device: CDC-ACM (ttyACM*) or a USB-serial adapter (ttyUSB*).
    case usb
    /// A Bluetooth serial link (rfcomm*).
    case bluetooth
  }

  /// The device path, such as `/dev/ttyACM0`: pass it to ``SerialPort/open(_:baudRate:)``.
  public var name: String
  /// A description for people, such as the USB product name, when libserialport has one.
  public var portDescription: String?
  /// How the port is attached.
  public var transport: Transport
  /// The USB vendor ID, for a USB port.
  public var usbVendorID: UInt16?
  /// The USB product ID, for a USB port.
  public var usbProductID: UInt16?
  /// The USB manufacturer string, for a USB port that reports one.
  public var manufacturer: String?
  /// The USB product string, for a USB port that reports one.
  public var product: String?
  /// The USB serial number, for a USB port that reports one: the stable way to tell two boards apart.
  public var serialNumber: String?

  /// Creates a description of a port; ``list()`` is the usual source.
  public init(
    name: String, portDescription: String? = nil, transport: Transport = .native, usbVendorID: UInt16? = nil,
    usbProductID: UInt16? = nil, manufacturer: String? = nil, product: String? = nil, serialNumber: String? = nil
  ) {
    self.name = name
    self.portDescription = portDescription
    self.transport = transport
    self.usbVendorID = usbVendorID
    self.usbProductID = usbProductID
    self.manufacturer = manufacturer
    self.product = product
    self.serialNumber = serialNumber
  }

  init(_ port: LibSerialPort.PortReference) {
    let ids = port.usbVendorAndProductID
    self.init(
      name: port.name, portDescription: port.description, transport: port.transport, usbVendorID: ids?.vendor,
      usbProductID: ids?.product, manufacturer: port.usbManufacturer, product: port.usbProduct,
      serialNumber: port.usbSerialNumber)
  }

  /// The serial ports on this machine, sorted by name with numbers in numeric order (`ttyACM2` before
  /// `ttyACM10`). The list may be empty; it never includes pseudo-terminals.
  ///
  /// The corresponding C functions are `sp_list_ports`, the `sp_get_port_*` getters and `sp_free_port_list`.
  public static func list() throws(SerialPortError) -> [SerialPortInfo] {
    var list: UnsafeMutablePointer<OpaquePointer?>?
    let result = sp_list_ports(&list)
    guard result == SP_OK, let list else {
      throw .libserialport("sp_list_ports", result: result, port: "/sys/class/tty")
    }
    defer { sp_free_port_list(list) }
    var ports: [SerialPortInfo] = []
    var index = 0
    while let port = list[index] {
      ports.append(SerialPortInfo(LibSerialPort.PortReference(pointer: port)))
      index += 1
    }
    return ports.sorted { naturallyOrdered($0.name, $1.name) }
  }

  /// Whether `a` sorts before `b` when runs of digits compare as numbers.
  static func naturallyOrdered(_ a: String, _ b: String) -> Bool {
    let left = Array(a.utf8)
    let right = Array(b.utf8)
    var i = 0
    var j = 0
    while i < left.count, j < right.count {
      if isDigit(left[i]), isDigit(right[j]) {
        let leftEnd = left[i...].firstIndex { !isDigit($0) } ?? left.count
        let rightEnd = right[j...].firstIndex { !isDigit($0) } ?? right.count
        let leftDigits = left[i..<leftEnd].drop { $0 == UInt8(ascii: "0") }
        let rightDigits = right[j..<rightEnd].drop { $0 == UInt8(ascii: "0") }
        if leftDigits.count != rightDigits.count { return leftDigits.count < rightDigits.count }
        if !leftDigits.elementsEqual(rightDigits) { return leftDigits.lexicographicallyPrecedes(rightDigits) }
        i = leftEnd
        j = rightEnd
      } else {
        if left[i] != right[j] { return left[i] < right[j] }
        i += 1
        j += 1
      }
    }
    if i < left.count || j < right.count { return j < right.count && i == left.count }
    return left.lexicographicallyPrecedes(right)  // equal as numbers ("01" vs "1"): fall back to bytes
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}
