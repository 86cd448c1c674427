#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A device as udev sees it during an event: the device and its parents (`udevadm info --attribute-walk`)
/// and its properties (`udevadm info --query=property`). Rules are matched against it by ``UdevRules``.
public struct UdevDevice: Equatable, Sendable {
  /// One device of the chain: the device itself first, then each parent up to the root.
  public struct Node: Equatable, Sendable {
    /// `KERNEL`/`KERNELS`: the kernel's name, e.g. `ttyACM0`, `1-2`.
    public var kernel: String
    /// `SUBSYSTEM`/`SUBSYSTEMS`, e.g. `tty`, `usb`.
    public var subsystem: String
    /// `DRIVER`/`DRIVERS`, e.g. `cdc_acm`; empty when none.
    public var driver: String
    /// `ATTR{…}`/`ATTRS{…}`: sysfs attributes, e.g. `idVendor`.
    public var attributes: [String: String]

    /// A node.
    public init(kernel: String, subsystem: String, driver: String = "", attributes: [String: String] = [:]) {
      self.kernel = kernel
      self.subsystem = subsystem
      self.driver = driver
      self.attributes = attributes
    }
  }

  /// The device first, then its parents.
  public var chain: [Node]
  /// `ENV{…}`: the device's properties before the rules ran (`DEVTYPE`, `DEVNAME`, …).
  public var properties: [String: String]

  /// A device.
  public init(chain: [Node], properties: [String: String] = [:]) {
    self.chain = chain
    self.properties = properties
  }

  /// A CallAlert board's CDC-ACM port as udev sees it on a typical PC (USB 1209:ca11, serial `serial`):
  /// what `callalert doctor` checks the installed rules against.
  public static func callAlertBoard(serial: String = "CA-0042") -> UdevDevice {
    UdevDevice(
      chain: [
        Node(kernel: "ttyACM0", subsystem: "tty", attributes: ["dev": "166:0"]),
        Node(
          kernel: "1-2:1.0", subsystem: "usb", driver: "cdc_acm",
          attributes: ["bInterfaceClass": "02", "bInterfaceSubClass": "02", "bInterfaceNumber": "00"]),
        Node(
          kernel: "1-2", subsystem: "usb", driver: "usb",
          attributes: [
            "idVendor": "1209", "idProduct": "ca11", "serial": serial, "manufacturer": "CallAlert",
            "product": "CallAlert board", "bDeviceClass": "02",
          ]),
        Node(kernel: "usb1", subsystem: "usb", driver: "usb", attributes: ["idVendor": "1d6b", "idProduct": "0002"]),
        Node(kernel: "0000:00:14.0", subsystem: "pci", driver: "xhci_hcd", attributes: ["vendor": "0x8086"]),
      ],
      properties: ["SUBSYSTEM": "tty", "DEVNAME": "/dev/ttyACM0", "MAJOR": "166", "MINOR": "0"])
  }

  /// Reads `udevadm info --attribute-walk` output, plus optional `E: KEY=value` property lines
  /// (`udevadm info --query=all`); nil when no device is described.
  public static func parse(attributeWalk text: String) -> UdevDevice? {
    var chain: [Node] = []
    var properties: [String: String] = [:]
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
      let line = rawLine.trimmingWhitespace()
      if line.hasPrefix("looking at") {
        chain.append(Node(kernel: "", subsystem: ""))
        continue
      }
      if line.hasPrefix("E: "), let equals = line.firstIndex(of: "=") {
        properties[String(line[line.index(line.startIndex, offsetBy: 3)..<equals])] = String(
          line[line.index(after: equals)...])
        continue
      }
      guard !chain.isEmpty, let separator = line.firstRange(of: "==") else { continue }
      let key = String(line[..<separator.lowerBound])
      var value = String(line[separator.upperBound...])
      if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
        value = String(value.dropFirst().dropLast())
      }
      let last = chain.count - 1
      switch key {
      case "KERNEL", "KERNELS": chain[last].kernel = value
      case "SUBSYSTEM", "SUBSYSTEMS": chain[last].subsystem = value
      case "DRIVER", "DRIVERS": chain[last].driver = value
      default:
        for prefix in ["ATTRS{", "ATTR{"] where key.hasPrefix(prefix) && key.hasSuffix("}") {
          chain[last].attributes[String(key.dropFirst(prefix.count).dropLast())] = value
        }
      }
    }
    return chain.isEmpty ? nil : UdevDevice(chain: chain, properties: properties)
  }
}

extension Substring {
  func trimmingWhitespace() -> Substring {
    var result = self
    while let first = result.first, first.isWhitespace { result = result.dropFirst() }
    while let last = result.last, last.isWhitespace { result = result.dropLast() }
    return result
  }
}
