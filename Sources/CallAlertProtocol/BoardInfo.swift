/// What a board has: its channels, ranges and limits. Part of ``BoardInfo``.
///
/// Layout, 25 bytes in a version-1 session: buzzer_channels u8, buzzer_min_hz u16, buzzer_max_hz u16,
/// motor_channels u8, leds u8, buttons u8, pattern_slots u8, max_steps u16, max_payload u16, window u8,
/// table_capacity u32, motor_max_on_ms u16, motor_duty_window_ms u16, motor_max_duty_percent u8, lease_ms u16;
/// version 2 (v1.1) adds event_queue u8 (26 bytes).
public struct Capabilities: Equatable, Sendable {
  /// Buzzers (each plays one tone at a time).
  public var buzzerChannels: UInt8
  /// The lowest frequency the buzzer plays.
  public var buzzerMinHz: UInt16
  /// The highest frequency the buzzer plays.
  public var buzzerMaxHz: UInt16
  /// Vibration motors.
  public var motorChannels: UInt8
  /// LEDs; LED 0 is the indicator.
  public var leds: UInt8
  /// Buttons; button 0 acknowledges.
  public var buttons: UInt8
  /// The most slots a pattern table may have on this board.
  public var patternSlots: UInt8
  /// The most steps in one pattern.
  public var maxSteps: UInt16
  /// The largest payload the board accepts.
  public var maxPayload: UInt16
  /// The most commands the board accepts in flight.
  public var window: UInt8
  /// The largest pattern table in bytes.
  public var tableCapacity: UInt32
  /// The motor's longest continuous run before the board forces a rest.
  public var motorMaxOnMs: UInt16
  /// The window over which the motor's average duty is measured.
  public var motorDutyWindowMs: UInt16
  /// The highest average duty over that window, in percent.
  public var motorMaxDutyPercent: UInt8
  /// The lease's current length: how long a play survives without LEASE or PLAY from the host.
  public var leaseMs: UInt16
  /// (Version 2) The most events pending, in flight plus waiting, before the board drops one and reports
  /// `event_overflow`; 0 when the session's version does not carry it.
  public var eventQueue: UInt8

  /// Creates capabilities.
  public init(
    buzzerChannels: UInt8, buzzerMinHz: UInt16, buzzerMaxHz: UInt16, motorChannels: UInt8, leds: UInt8,
    buttons: UInt8, patternSlots: UInt8, maxSteps: UInt16, maxPayload: UInt16, window: UInt8,
    tableCapacity: UInt32, motorMaxOnMs: UInt16, motorDutyWindowMs: UInt16, motorMaxDutyPercent: UInt8,
    leaseMs: UInt16, eventQueue: UInt8 = 0
  ) {
    self.buzzerChannels = buzzerChannels
    self.buzzerMinHz = buzzerMinHz
    self.buzzerMaxHz = buzzerMaxHz
    self.motorChannels = motorChannels
    self.leds = leds
    self.buttons = buttons
    self.patternSlots = patternSlots
    self.maxSteps = maxSteps
    self.maxPayload = maxPayload
    self.window = window
    self.tableCapacity = tableCapacity
    self.motorMaxOnMs = motorMaxOnMs
    self.motorDutyWindowMs = motorDutyWindowMs
    self.motorMaxDutyPercent = motorMaxDutyPercent
    self.leaseMs = leaseMs
    self.eventQueue = eventQueue
  }

  func encode(into writer: inout ByteWriter, version: UInt8) {
    writer.u8(buzzerChannels)
    writer.u16(buzzerMinHz)
    writer.u16(buzzerMaxHz)
    writer.u8(motorChannels)
    writer.u8(leds)
    writer.u8(buttons)
    writer.u8(patternSlots)
    writer.u16(maxSteps)
    writer.u16(maxPayload)
    writer.u8(window)
    writer.u32(tableCapacity)
    writer.u16(motorMaxOnMs)
    writer.u16(motorDutyWindowMs)
    writer.u8(motorMaxDutyPercent)
    writer.u16(leaseMs)
    if version >= 2 { writer.u8(eventQueue) }
  }

  static func decode(_ r: inout ByteReader, version: UInt8) throws(PayloadError) -> Capabilities {
    var capabilities = Capabilities(
      buzzerChannels: try r.u8("buzzer_channels"), buzzerMinHz: try r.u16("buzzer_min_hz"),
      buzzerMaxHz: try r.u16("buzzer_max_hz"), motorChannels: try r.u8("motor_channels"),
      leds: try r.u8("leds"), buttons: try r.u8("buttons"), patternSlots: try r.u8("pattern_slots"),
      maxSteps: try r.u16("max_steps"), maxPayload: try r.u16("max_payload"), window: try r.u8("window"),
      tableCapacity: try r.u32("table_capacity"), motorMaxOnMs: try r.u16("motor_max_on_ms"),
      motorDutyWindowMs: try r.u16("motor_duty_window_ms"),
      motorMaxDutyPercent: try r.u8("motor_max_duty_percent"), leaseMs: try r.u16("lease_ms"))
    if version >= 2 { capabilities.eventQueue = try r.u8("event_queue") }
    return capabilities
  }
}

/// The installed pattern table as INFO reports it. Layout, 12 bytes: version u32, crc u32, size u32
/// (all 0 when no table is installed).
public struct TableSummary: Equatable, Sendable {
  /// The table's version, 0 when none.
  public var version: UInt32
  /// The table's CRC-32C (its last 4 bytes), 0 when none.
  public var crc: UInt32
  /// The table's size in bytes, 0 when none.
  public var size: UInt32

  /// Creates a summary.
  public init(version: UInt32, crc: UInt32, size: UInt32) {
    self.version = version
    self.crc = crc
    self.size = size
  }

  /// No table installed.
  public static let none = TableSummary(version: 0, crc: 0, size: 0)

  func encode(into writer: inout ByteWriter) {
    writer.u32(version)
    writer.u32(crc)
    writer.u32(size)
  }

  static func decode(_ r: inout ByteReader) throws(PayloadError) -> TableSummary {
    TableSummary(version: try r.u32("table_version"), crc: try r.u32("table_crc"), size: try r.u32("table_size"))
  }
}

/// INFO, the answer to HELLO and GET_INFO: who the board is, what it has, what table it holds.
///
/// Layout: min_version u8, max_version u8, version u8 (the session's, within min..max and 1...2), firmware
/// major u8, minor u8, patch u8, boot_nonce u32, serial_length u8 (0-32), serial (printable ASCII),
/// ``Capabilities`` (25 bytes in version 1, 26 in version 2), ``TableSummary`` (12 bytes).
public struct BoardInfo: Equatable, Sendable {
  /// The longest serial number.
  public static let maxSerialLength = 32

  /// The lowest protocol version the board speaks.
  public var minVersion: UInt8
  /// The highest protocol version the board speaks.
  public var maxVersion: UInt8
  /// The session's negotiated version, within `minVersion...maxVersion`; it chooses the Capabilities layout.
  public var sessionVersion: UInt8
  /// Firmware version as major, minor, patch.
  public var firmware: (major: UInt8, minor: UInt8, patch: UInt8)
  /// The boot nonce, also in every frame's header.
  public var bootNonce: UInt32
  /// The board's serial number, printable ASCII.
  public var serial: [UInt8]
  /// What the board has.
  public var capabilities: Capabilities
  /// The installed table.
  public var table: TableSummary

  /// Creates an INFO.
  public init(
    minVersion: UInt8, maxVersion: UInt8, sessionVersion: UInt8, firmware: (major: UInt8, minor: UInt8, patch: UInt8),
    bootNonce: UInt32, serial: [UInt8], capabilities: Capabilities, table: TableSummary
  ) {
    self.minVersion = minVersion
    self.maxVersion = maxVersion
    self.sessionVersion = sessionVersion
    self.firmware = firmware
    self.bootNonce = bootNonce
    self.serial = serial
    self.capabilities = capabilities
    self.table = table
  }

  /// Compares every field.
  public static func == (lhs: BoardInfo, rhs: BoardInfo) -> Bool {
    lhs.minVersion == rhs.minVersion && lhs.maxVersion == rhs.maxVersion
      && lhs.sessionVersion == rhs.sessionVersion && lhs.firmware == rhs.firmware
      && lhs.bootNonce == rhs.bootNonce && lhs.serial == rhs.serial && lhs.capabilities == rhs.capabilities
      && lhs.table == rhs.table
  }

  func encode(into writer: inout ByteWriter) {
    writer.u8(minVersion)
    writer.u8(maxVersion)
    writer.u8(sessionVersion)
    writer.u8(firmware.major)
    writer.u8(firmware.minor)
    writer.u8(firmware.patch)
    writer.u32(bootNonce)
    let serial = serial.prefix(BoardInfo.maxSerialLength)
    writer.u8(UInt8(serial.count))
    writer.append(serial)
    capabilities.encode(into: &writer, version: sessionVersion)
    table.encode(into: &writer)
  }

  static func decode(_ r: inout ByteReader) throws(PayloadError) -> BoardInfo {
    let minVersion = try r.u8("min_version")
    let maxVersion = try r.u8("max_version")
    let sessionVersion = try r.u8("version")
    // INFO only answers HELLO or, within a session, GET_INFO: its version is always a negotiated one, within the
    // board's range (so never when min_version > max_version) and one this codec speaks, since negotiation never
    // goes above the host's max_version; the layout of any other version is unknown here (PROTOCOL.md §10.4).
    guard sessionVersion >= minVersion, sessionVersion <= maxVersion, Hello.protocolVersions.contains(sessionVersion)
    else { throw r.invalid("version", width: 1) }
    let firmware = (
      major: try r.u8("firmware_major"), minor: try r.u8("firmware_minor"), patch: try r.u8("firmware_patch")
    )
    let nonce = try r.u32("boot_nonce")
    let length = try r.u8("serial_length")
    guard Int(length) <= maxSerialLength else { throw r.invalid("serial_length", width: 1) }
    let serialAt = r.offset
    let serial = try r.bytes(Int(length), "serial")
    for byte in serial where byte < 0x20 || byte > 0x7E {
      throw PayloadError(.invalidValue, field: "serial", offset: serialAt)
    }
    return BoardInfo(
      minVersion: minVersion, maxVersion: maxVersion, sessionVersion: sessionVersion, firmware: firmware,
      bootNonce: nonce, serial: serial, capabilities: try Capabilities.decode(&r, version: sessionVersion),
      table: try TableSummary.decode(&r))
  }
}
