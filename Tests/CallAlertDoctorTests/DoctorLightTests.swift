import CallAlertDoctor
import CallAlertHID
import CallAlertLights
import Foundation
import Testing

/// `callalert doctor` on a configured USB light: found among the lights plugged in, its hidraw node open to
/// this user or the fix that opens it.
@Suite("Doctor: lights")
struct DoctorLightTests {
  static let node = "/dev/hidraw3"
  static let kuando = HIDLightInfo(
    kind: .kuando, id: USBDeviceID(vendor: 0x27BB, product: 0x3BCD), path: node, serialNumber: "KB-1")

  /// A config with one Kuando, in a folder of its own.
  static func withConfig(_ body: (String) async throws -> Void) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-light-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("config.yaml").path
    try "boards:\n  - name: lamp\n    kind: kuando\n".write(toFile: file, atomically: true, encoding: .utf8)
    try await body(file)
  }

  static func machine(readable: Bool) -> FakeSystem {
    var system = DoctorTests.brokenMachine()
    system.files[node] = FileFacts(kind: .characterDevice, mode: 0o660, owner: 0, group: 20)
    if readable { system.readWrite = [node] }
    return system
  }

  @Test func aLightNotPluggedInIsAnErrorThatNamesItsUSBIDs() async throws {
    try await Self.withConfig { config in
      let report = await DoctorTests.run(Self.machine(readable: true), Script(), config: config)
      let found = try #require(report.finding("board lamp: found"))
      #expect(found.status == .error)
      #expect(found.summary.contains("no Kuando Busylight (USB 27bb:3bca"))
      #expect(found.fix?.contains("callalert board simulate --kind kuando") == true)
    }
  }

  @Test func aLightThisUserCannotOpenIsAnErrorWithTheHidrawFix() async throws {
    try await Self.withConfig { config in
      let report = await DoctorTests.run(Self.machine(readable: false), Script(lights: [Self.kuando]), config: config)
      #expect(report.finding("board lamp: found")?.status == .ok)
      let access = try #require(report.finding("board lamp: access"))
      #expect(access.status == .error)
      #expect(access.summary.contains("/dev/hidraw3 (group dialout, mode 0660) is not readable and writable by alice"))
      #expect(access.fix?.contains("--subsystem-match=hidraw") == true)
      #expect(access.fix?.contains("replug the light") == true)
    }
  }

  @Test func aLightThisUserCanOpenIsFine() async throws {
    try await Self.withConfig { config in
      let report = await DoctorTests.run(Self.machine(readable: true), Script(lights: [Self.kuando]), config: config)
      #expect(report.finding("board lamp: found")?.summary == "Kuando Busylight at /dev/hidraw3")
      #expect(report.finding("board lamp: access")?.status == .ok)
    }
  }
}
