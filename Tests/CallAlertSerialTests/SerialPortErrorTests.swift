import Testing

@testable import CallAlertSerial

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Serial port errors")
struct SerialPortErrorTests {
  @Test(
    "descriptions name the port and say what to do",
    arguments: [
      (SerialPortError(code: .noSuchPort, port: "/dev/ttyACM9"), "no such port /dev/ttyACM9"),
      (SerialPortError(code: .busy, port: "/dev/ttyACM0"), "port /dev/ttyACM0 is busy (held by another process)"),
      (
        SerialPortError(code: .permissionDenied, port: "/dev/ttyACM0"),
        "permission denied on /dev/ttyACM0 (add yourself to the dialout group)"
      ),
      (
        SerialPortError(code: .disconnected, port: "/dev/ttyACM0"),
        "port /dev/ttyACM0 disconnected (the device was unplugged or the other end hung up)"
      ),
      (SerialPortError(code: .closed, port: "/dev/pts/3"), "port /dev/pts/3 is closed"),
      (
        SerialPortError(code: .unsupportedConfiguration, port: "/dev/ttyS0", detail: "baud rate 123"),
        "unsupported setting on /dev/ttyS0: baud rate 123"
      ),
      (
        SerialPortError(
          code: .libserialportFailure, port: "/dev/ttyS0", function: "sp_set_config", libserialportResult: -2,
          systemErrorNumber: 5, systemMessage: "Input/output error"),
        "sp_set_config failed on /dev/ttyS0: Input/output error, SP_ERR_FAIL, errno 5"
      ),
    ])
  func descriptions(error: SerialPortError, expected: String) {
    #expect(error.description == expected)
  }

  @Test("system errnos map to the codes a user can act on")
  func errnoMapping() {
    #expect(SerialPortError.system("open", port: "p", errno: ENOENT).code == .noSuchPort)
    #expect(SerialPortError.system("open", port: "p", errno: EACCES).code == .permissionDenied)
    #expect(SerialPortError.system("open", port: "p", errno: EBUSY).code == .busy)
    #expect(SerialPortError.system("open", port: "p", errno: EINVAL).code == .systemFailure)
    #expect(SerialPortError.system("open", port: "p", errno: EACCES).systemMessage == "Permission denied")
  }
}
