import CallAlertSerial
import Testing

@testable import CallAlertClient

/// A micro:bit running the CallAlert firmware is found by its interface chip's USB IDs (DAPLink, 0d28:0204),
/// whatever the system names its port.
@Suite("DAPLink ports")
struct DAPLinkPortTests {
  @Test("a port with DAPLink's USB IDs is probed, even under a name that is not a CDC-ACM one")
  func daplinkIsProbed() {
    let microbit = BoardLocator.Port(
      path: "/dev/ttyUSB7", info: SerialPortInfo(name: "/dev/ttyUSB7", usbVendorID: 0x0D28, usbProductID: 0x0204))
    #expect(microbit.hasDAPLinkIDs)
    #expect(BoardLocator.isLikelyBoard(microbit))
    let other = BoardLocator.Port(
      path: "/dev/ttyUSB8", info: SerialPortInfo(name: "/dev/ttyUSB8", usbVendorID: 0x0403, usbProductID: 0x6001))
    #expect(!other.hasDAPLinkIDs)
    #expect(!BoardLocator.isLikelyBoard(other))
  }
}
