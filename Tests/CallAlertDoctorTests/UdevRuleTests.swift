import CallAlertDoctor
import CallAlertLights
import Foundation
import Testing

/// The shipped udev rule (packaging/udev/70-callalert.rules), run on recorded udev views of devices.
@Suite("udev rule")
struct UdevRuleTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func text(_ relative: String) throws -> String {
    try String(contentsOf: repository.appendingPathComponent(relative), encoding: .utf8)
  }

  static func rule() throws -> UdevRules { UdevRules(text: try text("packaging/udev/70-callalert.rules")) }

  static func fixture(_ name: String) throws -> UdevDevice {
    try #require(UdevDevice.parse(attributeWalk: try text("Tests/CallAlertDoctorTests/Fixtures/\(name)")))
  }

  @Test func everyLineOfTheRuleIsRead() throws {
    let rules = try Self.rule()
    #expect(rules.unreadable.isEmpty)
    #expect(rules.rules.count >= 4)
  }

  @Test func theRecordedEnvironmentIsParsed() throws {
    let device = try Self.fixture("callalert-ttyACM0.udev.txt")
    #expect(device.chain.map(\.kernel) == ["ttyACM0", "1-2:1.0", "1-2", "usb1", "0000:00:14.0", "pci0000:00"])
    #expect(device.chain[2].attributes["idVendor"] == "1209")
    #expect(device.chain[1].driver == "cdc_acm")
    #expect(device.properties["DEVNAME"] == "/dev/ttyACM0")
  }

  @Test func aBoardsPortGetsAccessALinkAndModemManagerKeptAway() throws {
    let outcome = try Self.rule().evaluate(try Self.fixture("callalert-ttyACM0.udev.txt"), action: "add")
    #expect(outcome.tags.contains("uaccess"))
    #expect(outcome.group == "dialout")
    #expect(outcome.mode == "0660")
    #expect(outcome.symlinks == ["callalert/CA-0042"])
    #expect(outcome.properties["ID_MM_DEVICE_IGNORE"] == "1")
  }

  @Test func aChangeEventAppliesTheSameAndRemoveNothing() throws {
    let device = try Self.fixture("callalert-ttyACM0.udev.txt")
    #expect(try Self.rule().evaluate(device, action: "change").tags.contains("uaccess"))
    let removed = try Self.rule().evaluate(device, action: "remove")
    #expect(removed.tags.isEmpty && removed.symlinks.isEmpty && removed.group == nil)
  }

  @Test func anotherDeviceUnderTheSameVendorIsLeftAlone() throws {
    let outcome = try Self.rule().evaluate(try Self.fixture("other-1209-ttyACM1.udev.txt"))
    #expect(outcome.tags.isEmpty)
    #expect(outcome.group == nil && outcome.mode == nil)
    #expect(outcome.symlinks.isEmpty)
    #expect(outcome.properties["ID_MM_DEVICE_IGNORE"] == nil)
  }

  @Test func theUSBDeviceItselfIsHiddenFromModemManager() throws {
    let usbDevice = UdevDevice(
      chain: [
        .init(kernel: "1-2", subsystem: "usb", driver: "usb", attributes: ["idVendor": "1209", "idProduct": "ca11"])
      ],
      properties: ["DEVTYPE": "usb_device"])
    let outcome = try Self.rule().evaluate(usbDevice)
    #expect(outcome.properties["ID_MM_DEVICE_IGNORE"] == "1")
    #expect(outcome.tags.isEmpty)
  }

  @Test func aBoardWithoutASerialNumberGetsAccessButNoEmptyLink() throws {
    var device = UdevDevice.callAlertBoard()
    device.chain[2].attributes["serial"] = nil
    let outcome = try Self.rule().evaluate(device)
    #expect(outcome.tags.contains("uaccess"))
    #expect(outcome.symlinks.isEmpty)
  }

  /// uaccess only works when the tag is set before 73-seat-late.rules; ModemManager reads its ignore flag in
  /// 77-mm-*.rules and later.
  @Test func theRuleRunsBeforeSeatLateAndModemManager() throws {
    let number = try #require(Int("70-callalert.rules".prefix(2)))
    #expect(number < 73)
    #expect(
      FileManager.default.fileExists(
        atPath: Self.repository.appendingPathComponent("packaging/udev/70-callalert.rules").path))
  }

  @Test(arguments: [
    ("==", "1209", true), ("==", "12*", true), ("==", "1d6b|1209", true),
    ("==", "120?", true), ("==", "[0-9]209", true), ("==", "1208", false),
  ])
  func globs(_ operation: String, _ pattern: String, _ matches: Bool) {
    let rules = UdevRules(text: "ATTRS{idVendor}\(operation)\"\(pattern)\", TAG+=\"hit\"")
    #expect(rules.unreadable.isEmpty)
    #expect(rules.evaluate(.callAlertBoard()).tags.contains("hit") == matches)
  }

  @Test func parentKeysMustMatchOneAndTheSameDevice() {
    // idVendor is on 1-2, cdc_acm on 1-2:1.0: no single device has both.
    let rules = UdevRules(text: #"ATTRS{idVendor}=="1209", DRIVERS=="cdc_acm", TAG+="hit""#)
    #expect(rules.evaluate(.callAlertBoard()).tags.isEmpty)
  }

  @Test func anUnreadableLineIsReportedNotGuessed() {
    let rules = UdevRules(text: "KERNEL==ttyACM0, TAG+=\"x\"\n# comment\n\nKERNEL==\"ttyACM*\", \\\n  TAG+=\"y\"\n")
    #expect(rules.unreadable.count == 1)
    #expect(rules.rules.map(\.line) == [4])
    #expect(rules.evaluate(.callAlertBoard()).tags == ["y"])
  }

  /// Every light CallAlert drives: its hidraw node gets the logged-in user's access, as a board's port does.
  @Test(arguments: LightKind.allCases.flatMap { kind in kind.deviceIDs.map { (kind, $0) } })
  func aLightsHidrawNodeGetsUaccess(_ kind: LightKind, _ id: USBDeviceID) throws {
    let hex = { (value: UInt16) in String(value, radix: 16).leftPadded(to: 4) }
    let light = UdevDevice(
      chain: [
        .init(kernel: "hidraw3", subsystem: "hidraw", attributes: ["dev": "244:3"]),
        .init(kernel: "0003:\(hex(id.vendor)):\(hex(id.product)).0001", subsystem: "hid", driver: "hid-generic"),
        .init(kernel: "1-3:1.0", subsystem: "usb", driver: "usbhid", attributes: ["bInterfaceClass": "03"]),
        .init(
          kernel: "1-3", subsystem: "usb", driver: "usb",
          attributes: ["idVendor": hex(id.vendor), "idProduct": hex(id.product)]),
      ])
    let outcome = try Self.rule().evaluate(light, action: "add")
    #expect(outcome.tags.contains("uaccess"), "\(kind) \(id)")
    #expect(outcome.group == "dialout" && outcome.mode == "0660")
    #expect(outcome.symlinks.isEmpty)
  }

  @Test func anotherHIDDeviceIsLeftAlone() throws {
    let keyboard = UdevDevice(
      chain: [
        .init(kernel: "hidraw0", subsystem: "hidraw"),
        .init(kernel: "1-1", subsystem: "usb", driver: "usb", attributes: ["idVendor": "046d", "idProduct": "c31c"]),
      ])
    #expect(try Self.rule().evaluate(keyboard).tags.isEmpty)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
