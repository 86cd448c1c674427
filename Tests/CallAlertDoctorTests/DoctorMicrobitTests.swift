import CallAlertDoctor
import CallAlertSerial
import Foundation
import Testing

/// `callalert doctor` names a BBC micro:bit's DAPLink serial port and says whether it runs the
/// CallAlert image.
@Suite("Doctor: micro:bit")
struct DoctorMicrobitTests {
  static let microbitPort = SerialPortInfo(
    name: DoctorTests.port, transport: .usb, usbVendorID: 0x0D28, usbProductID: 0x0204,
    serialNumber: "9900000037024e450034200b0000006e00000000cdcd")

  static func machine() -> FakeSystem {
    var system = DoctorTests.brokenMachine()
    system.readWrite = [DoctorTests.port]
    return system
  }

  @Test func aMicrobitWithoutTheImageIsNamedAndToldWhichHexToDrag() async throws {
    let report = await DoctorTests.run(Self.machine(), Script(ports: [Self.microbitPort]))
    let found = try #require(report.finding("board board: found"))
    #expect(found.status == .ok)
    #expect(found.summary == "/dev/ttyACM0: BBC micro:bit (DAPLink)")
    let firmware = try #require(report.finding("board board: firmware"))
    #expect(firmware.status == .error)
    #expect(firmware.summary.contains("BBC micro:bit (DAPLink) that does not answer HELLO"))
    #expect(firmware.fix?.contains("drag firmware/build/callalert-microbit-v1.hex") == true)
    #expect(firmware.fix?.contains("onto the MICROBIT drive") == true)
    #expect(firmware.fix?.contains("callalert-microbit-v2.hex") == true)
  }

  @Test func aMicrobitRunningTheImageAnswersHelloAndIsHealthy() async throws {
    let report = await DoctorTests.run(
      Self.machine(),
      Script(ports: [Self.microbitPort], boards: [DoctorTests.port: .success(DoctorTests.info())]))
    let firmware = try #require(report.finding("board board: firmware"))
    #expect(firmware.status == .ok)
    #expect(firmware.summary.contains("firmware 1.2.3"))
    #expect(firmware.summary.contains("BBC micro:bit (DAPLink) running the CallAlert image"))
  }

  @Test func aCallAlertBoardIsNotCalledAMicrobit() async throws {
    let report = await DoctorTests.run(
      Self.machine(),
      Script(ports: [DoctorTests.boardPort], boards: [DoctorTests.port: .success(DoctorTests.info())]))
    #expect(report.finding("board board: found")?.summary == DoctorTests.port)
    #expect(report.finding("board board: firmware")?.summary.contains("micro:bit") == false)
  }

  @Test func aConfiguredPortThatIsAMicrobitIsNamedToo() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-microbit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let config = folder.appendingPathComponent("config.yaml").path
    try "boards:\n  - name: desk\n    port: \(DoctorTests.port)\n".write(
      toFile: config, atomically: true, encoding: .utf8)
    let report = await DoctorTests.run(Self.machine(), Script(ports: [Self.microbitPort]), config: config)
    #expect(report.finding("config")?.status == .ok)
    #expect(report.finding("board desk: found")?.summary == "/dev/ttyACM0: BBC micro:bit (DAPLink)")
    #expect(report.finding("board desk: firmware")?.fix?.contains("MICROBIT drive") == true)
  }
}
