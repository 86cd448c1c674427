import ArgumentParser
import CallAlertClient
import CallAlertHID
import CallAlertLights
import CallAlertProtocol
import CallAlertSerial
import CallAlertText

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension CallAlertCommand {
  /// `callalert ports`: serial ports, and which are CallAlert boards.
  struct Ports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "ports",
      abstract: "List serial ports and mark those that answer as CallAlert boards; list the USB lights.",
      discussion: """
        Ports with CallAlert's USB IDs (1209:ca11), USB CDC-ACM ports and the virtual board's link are probed \
        with HELLO; other ports are only listed, since writing to them could disturb another device, unless \
        --probe-all is given. USB lights CallAlert drives (Kuando Busylight, blink(1), Luxafor, Embrava) are \
        listed by their hidraw nodes, without writing to them.
        """
    )

    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Probe every port, not only the likely ones.") var probeAll = false

    func run() async throws {
      let ports = await BoardLocator.discover(probeAll: probeAll)
      let lights = HIDLights.discover()
      if json {
        try printJSON(ports.map(PortJSON.init) + lights.map(PortJSON.init))
        return
      }
      for light in lights {
        var line = "\(light.path)  hid  \(light.id)  \(light.kind.displayName)"
        if let product = light.product { line += "  \(product)" }
        if let serial = light.serialNumber { line += "  serial \(serial)" }
        print(line + "  => light (kind: \(light.kind.rawValue))")
      }
      if ports.isEmpty {
        print(lights.isEmpty ? "no serial ports, no USB lights" : "no serial ports")
        return
      }
      for port in ports {
        var line = port.path
        if let info = port.info {
          line += "  \(info.transport.rawValue)"
          if let vid = info.usbVendorID, let pid = info.usbProductID {
            line += PrintfText.format("  %04x:%04x", vid, pid)
          }
          for text in [info.manufacturer, info.product].compactMap({ $0 }) { line += "  \(text)" }
          if let serial = info.serialNumber { line += "  serial \(serial)" }
        } else {
          line += "  virtual board link"
        }
        if let board = port.board {
          let f = board.firmware
          line +=
            "  => CallAlert board \(String(decoding: board.serial, as: UTF8.self)), firmware \(f.major).\(f.minor).\(f.patch)"
        } else if port.isBusy {
          line += "  (busy: held by \(port.heldBy.map { "\($0)" } ?? "another process"))"
        } else if let error = port.probeError {
          line += "  (no board: \(error))"
        }
        print(line)
      }
    }
  }
}

/// A port as JSON.
struct PortJSON: Encodable {
  let path: String
  let transport: String?
  let usbVendorId: String?
  let usbProductId: String?
  let manufacturer: String?
  let product: String?
  let serialNumber: String?
  let board: BoardInfoJSON?
  let probeError: String?
  let heldBy: HolderJSON?
  /// For a USB light: its kind (`kuando`, `blink1`, `luxafor`, `embrava`).
  var light: String?

  /// The process holding a busy port.
  struct HolderJSON: Encodable {
    let pid: Int32
    let command: String?
  }

  init(_ port: BoardLocator.Port) {
    path = port.path
    transport = port.info?.transport.rawValue ?? "virtual"
    usbVendorId = port.info?.usbVendorID.map { PrintfText.format("%04x", $0) }
    usbProductId = port.info?.usbProductID.map { PrintfText.format("%04x", $0) }
    manufacturer = port.info?.manufacturer
    product = port.info?.product
    serialNumber = port.info?.serialNumber
    board = port.board.map(BoardInfoJSON.init)
    probeError = port.probeError
    heldBy = port.heldBy.map { HolderJSON(pid: $0.pid, command: $0.command) }
  }

  /// A USB light's hidraw node.
  init(_ light: HIDLightInfo) {
    path = light.path
    transport = "hid"
    usbVendorId = PrintfText.format("%04x", light.id.vendor)
    usbProductId = PrintfText.format("%04x", light.id.product)
    manufacturer = nil
    product = light.product
    serialNumber = light.serialNumber
    board = nil
    probeError = nil
    heldBy = nil
    self.light = light.kind.rawValue
  }

  enum CodingKeys: String, CodingKey {
    case light
    case path, transport, usbVendorId = "usb_vendor_id", usbProductId = "usb_product_id", manufacturer, product
    case serialNumber = "serial_number", board, probeError = "probe_error", heldBy = "held_by"
  }
}
