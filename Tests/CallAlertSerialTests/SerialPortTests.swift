import CSerialPort
import CallAlertTransport
import SystemPackage
import Testing

@testable import CallAlertSerial

@Suite("libserialport: discovery and real ports", .timeLimit(.minutes(1)))
struct SerialPortTests {
  @Test("enumeration returns a possibly empty list of named ports, sorted")
  func enumeration() throws {
    let ports = try SerialPortInfo.list()
    #expect(ports.allSatisfy { !$0.name.isEmpty })
    #expect(ports.map(\.name) == ports.map(\.name).sorted(by: SerialPortInfo.naturallyOrdered))
    for port in ports where port.transport != .usb {
      #expect(port.usbVendorID == nil && port.usbProductID == nil)
    }
  }

  @Test("opening a missing port through libserialport says no such port")
  func missingPort() {
    let error = serialPortError { _ = try SerialPort.open("/dev/ttyACM9") }
    #expect(error?.code == .noSuchPort)
    #expect(error?.description == "no such port /dev/ttyACM9")
    #expect(error?.function == "sp_get_port_by_name")
    #expect(error?.libserialportResult == SP_ERR_ARG.rawValue)
  }

  @Test("a missing symbolic link target is named as the link")
  func missingLinkTarget() {
    let error = serialPortError { _ = try SerialPort.open("/dev/serial/by-id/usb-CallAlert_Board_0000-if00") }
    #expect(error?.description == "no such port /dev/serial/by-id/usb-CallAlert_Board_0000-if00")
  }

  @Test("libserialport 0.1.1 cannot look up a pseudo-terminal, which is why they take their own path")
  func libserialportRefusesPseudoTerminals() throws {
    let (master, slavePath) = try PseudoTerminal.open()
    defer { try? master.close() }
    let error = serialPortError { _ = try LibSerialPort.Port(name: slavePath, displayName: slavePath) }
    #expect(error?.code == .notASerialPort)
    #expect(error?.libserialportResult != nil)
  }

  @Test("the libserialport configuration takes 115200 8N1 without flow control, and refuses a zero baud rate")
  func configuration() throws {
    let configuration = try LibSerialPort.Configuration(port: "test")
    try configuration.set(baudRate: SerialPort.defaultBaudRate, port: "test")
    var baud: CInt = 0
    var bits: CInt = 0
    var stopBits: CInt = 0
    var parity = SP_PARITY_INVALID
    #expect(sp_get_config_baudrate(configuration.pointer, &baud) == SP_OK)
    #expect(sp_get_config_bits(configuration.pointer, &bits) == SP_OK)
    #expect(sp_get_config_stopbits(configuration.pointer, &stopBits) == SP_OK)
    #expect(sp_get_config_parity(configuration.pointer, &parity) == SP_OK)
    #expect((baud, bits, stopBits) == (115_200, 8, 1))
    #expect(parity == SP_PARITY_NONE)
    var xonXoff = SP_XONXOFF_INVALID
    #expect(sp_get_config_xon_xoff(configuration.pointer, &xonXoff) == SP_OK)
    #expect(xonXoff == SP_XONXOFF_DISABLED)

    let error = serialPortError { try configuration.set(baudRate: 0, port: "/dev/ttyACM0") }
    #expect(error?.code == .unsupportedConfiguration)
  }

  @Test(
    "ports sort with numbers in numeric order",
    arguments: [
      (
        ["/dev/ttyUSB10", "/dev/ttyACM1", "/dev/ttyUSB2", "/dev/ttyACM0"],
        ["/dev/ttyACM0", "/dev/ttyACM1", "/dev/ttyUSB2", "/dev/ttyUSB10"]
      ),
      (["/dev/ttyS10", "/dev/ttyS9", "/dev/ttyS1"], ["/dev/ttyS1", "/dev/ttyS9", "/dev/ttyS10"]),
      (["/dev/ttyACM1a", "/dev/ttyACM1", "/dev/ttyACM01"], ["/dev/ttyACM01", "/dev/ttyACM1", "/dev/ttyACM1a"]),
      (["b", "a", "ab"], ["a", "ab", "b"]),
    ])
  func naturalOrder(input: [String], expected: [String]) {
    #expect(input.sorted(by: SerialPortInfo.naturallyOrdered) == expected)
  }
}
