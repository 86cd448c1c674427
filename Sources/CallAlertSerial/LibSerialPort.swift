import CSerialPort

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Thin typed wrappers over the parts of libserialport this module uses.
///
/// Internal on purpose: the rest of CallAlert needs discovery (``SerialPortInfo/list()``) and opening
/// (``SerialPort/open(_:baudRate:)``), not libserialport's structures, which are not thread-safe and whose
/// lifetimes (strings owned by the port struct, descriptors owned by an open port) are easy to get wrong.
enum LibSerialPort {
  /// A borrowed `struct sp_port *`: valid only while its owner (a ``Port`` or a port list) is alive.
  struct PortReference {
    let pointer: OpaquePointer

    /// The device path, such as `/dev/ttyACM0`.
    ///
    /// The corresponding C function is `sp_get_port_name`.
    var name: String { string(sp_get_port_name(pointer)) ?? "" }

    /// A description for people, such as the USB product string.
    ///
    /// The corresponding C function is `sp_get_port_description`.
    var description: String? { string(sp_get_port_description(pointer)) }

    /// How the port is attached.
    ///
    /// The corresponding C function is `sp_get_port_transport`.
    var transport: SerialPortInfo.Transport {
      switch sp_get_port_transport(pointer) {
      case SP_TRANSPORT_USB: return .usb
      case SP_TRANSPORT_BLUETOOTH: return .bluetooth
      default: return .native
      }
    }

    /// The USB vendor and product IDs, for a USB port.
    ///
    /// The corresponding C function is `sp_get_port_usb_vid_pid`.
    var usbVendorAndProductID: (vendor: UInt16, product: UInt16)? {
      var vendor: CInt = -1
      var product: CInt = -1
      guard sp_get_port_usb_vid_pid(pointer, &vendor, &product) == SP_OK,
        let vendor = UInt16(exactly: vendor), let product = UInt16(exactly: product)
      else { return nil }
      return (vendor, product)
    }

    /// The USB manufacturer string.
    ///
    /// The corresponding C function is `sp_get_port_usb_manufacturer`.
    var usbManufacturer: String? { string(sp_get_port_usb_manufacturer(pointer)) }

    /// The USB product string.
    ///
    /// The corresponding C function is `sp_get_port_usb_product`.
    var usbProduct: String? { string(sp_get_port_usb_product(pointer)) }

    /// The USB serial number string.
    ///
    /// The corresponding C function is `sp_get_port_usb_serial`.
    var usbSerialNumber: String? { string(sp_get_port_usb_serial(pointer)) }

    /// Copies a string owned by the port struct; empty strings count as absent.
    private func string(_ text: UnsafeMutablePointer<CChar>?) -> String? {
      guard let text, text.pointee != 0 else { return nil }
      return String(cString: text)
    }
  }

  /// An owned `struct sp_port *`, freed (and closed, if still open) on deinit.
  final class Port {
    /// The port struct, for the getters.
    let reference: PortReference
    /// The name to show in errors: the path the caller gave, before symbolic links were resolved.
    let displayName: String
    private var isOpen = false

    /// Looks a port up by device path. Symbolic links must be resolved first: 0.1.1 derives the sysfs entry
    /// from the path's text (`/dev/serial/by-id/x` becomes `/sys/class/tty/serial/by-id/x`).
    ///
    /// 0.1.1 reports a missing device as `SP_ERR_ARG` ("Device not found") without an errno, so on failure
    /// the path is checked with stat(2) to tell "no such port" from "not a port libserialport knows".
    ///
    /// The corresponding C function is `sp_get_port_by_name`.
    init(name: String, displayName: String) throws(SerialPortError) {
      var pointer: OpaquePointer?
      let result = sp_get_port_by_name(name, &pointer)
      guard result == SP_OK, let pointer else {
        let failure = SerialPortError.libserialport("sp_get_port_by_name", result: result, port: displayName)
        var status = stat()
        if stat(name, &status) != 0 {
          throw .system("sp_get_port_by_name", port: displayName, libserialportResult: result.rawValue)
        }
        throw SerialPortError(
          code: .notASerialPort, port: displayName, function: failure.function,
          libserialportResult: failure.libserialportResult, systemErrorNumber: failure.systemErrorNumber,
          systemMessage: failure.systemMessage, detail: "libserialport has no /sys/class/tty entry for it")
      }
      self.reference = PortReference(pointer: pointer)
      self.displayName = displayName
    }

    deinit {
      if isOpen { sp_close(reference.pointer) }
      sp_free_port(reference.pointer)
    }

    /// Opens the port. 0.1.1 opens it O_NONBLOCK | O_NOCTTY and puts it in raw mode with VMIN = VTIME = 0;
    /// it takes no lock.
    ///
    /// The corresponding C function is `sp_open`.
    func open(_ mode: sp_mode) throws(SerialPortError) {
      let result = sp_open(reference.pointer, mode)
      guard result == SP_OK else { throw .libserialport("sp_open", result: result, port: displayName) }
      isOpen = true
    }

    /// Closes the port's descriptor.
    ///
    /// The corresponding C function is `sp_close`.
    func close() {
      guard isOpen else { return }
      isOpen = false
      sp_close(reference.pointer)
    }

    /// The open port's descriptor, still owned by the port struct.
    ///
    /// The corresponding C function is `sp_get_port_handle`.
    func handle() throws(SerialPortError) -> CInt {
      var descriptor: CInt = -1
      let result = sp_get_port_handle(reference.pointer, &descriptor)
      guard result == SP_OK, descriptor >= 0 else {
        throw .libserialport("sp_get_port_handle", result: result, port: displayName)
      }
      return descriptor
    }

    /// Applies a configuration to the open port.
    ///
    /// The corresponding C function is `sp_set_config`.
    func setConfiguration(_ configuration: Configuration) throws(SerialPortError) {
      let result = sp_set_config(reference.pointer, configuration.pointer)
      guard result == SP_OK else {
        let failure = SerialPortError.libserialport("sp_set_config", result: result, port: displayName)
        // SP_ERR_ARG, or EINVAL from the driver, is a setting this port cannot take: say which.
        guard result == SP_ERR_ARG || failure.systemErrorNumber == EINVAL else { throw failure }
        throw SerialPortError(
          code: .unsupportedConfiguration, port: displayName, function: failure.function,
          libserialportResult: failure.libserialportResult, systemErrorNumber: failure.systemErrorNumber,
          systemMessage: failure.systemMessage, detail: configuration.summary)
      }
    }
  }

  /// An owned `struct sp_port_config *`. Fields left unset keep the port's current value.
  final class Configuration {
    let pointer: OpaquePointer
    /// The settings in words, for error messages.
    private(set) var summary = ""

    /// The corresponding C function is `sp_new_config`.
    init(port: String) throws(SerialPortError) {
      var pointer: OpaquePointer?
      let result = sp_new_config(&pointer)
      guard result == SP_OK, let pointer else { throw .libserialport("sp_new_config", result: result, port: port) }
      self.pointer = pointer
    }

    deinit {
      sp_free_config(pointer)
    }

    /// Sets the baud rate, data bits, parity, stop bits and flow control.
    ///
    /// The corresponding C functions are `sp_set_config_baudrate`, `sp_set_config_bits`,
    /// `sp_set_config_parity`, `sp_set_config_stopbits` and `sp_set_config_flowcontrol`.
    func set(
      baudRate: Int, dataBits: Int = 8, parity: sp_parity = SP_PARITY_NONE, stopBits: Int = 1,
      flowControl: sp_flowcontrol = SP_FLOWCONTROL_NONE, port: String
    ) throws(SerialPortError) {
      summary = "baud rate \(baudRate), \(dataBits) data bits, parity \(parity.rawValue), \(stopBits) stop bits"
      guard let baud = CInt(exactly: baudRate), baud > 0 else {
        throw SerialPortError(code: .unsupportedConfiguration, port: port, detail: "baud rate \(baudRate)")
      }
      let steps: [(String, sp_return)] = [
        ("sp_set_config_baudrate", sp_set_config_baudrate(pointer, baud)),
        ("sp_set_config_bits", sp_set_config_bits(pointer, CInt(dataBits))),
        ("sp_set_config_parity", sp_set_config_parity(pointer, parity)),
        ("sp_set_config_stopbits", sp_set_config_stopbits(pointer, CInt(stopBits))),
        ("sp_set_config_flowcontrol", sp_set_config_flowcontrol(pointer, flowControl)),
      ]
      for (function, result) in steps where result != SP_OK {
        throw SerialPortError(
          code: .unsupportedConfiguration, port: port, function: function, libserialportResult: result.rawValue,
          detail: summary)
      }
    }
  }
}
