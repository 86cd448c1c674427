import CallAlertBoardCore

/// The pattern flash of this board: RAM with NOR semantics.
typealias PatternFlash = RAMFlash

extension BoardConfiguration {
  /// The QEMU board: the reference board's capabilities (one buzzer, one motor, two LEDs, one button,
  /// 16 slots, 1 024-byte payloads, window 8), with its own serial number.
  static var thisBoard: BoardConfiguration {
    BoardConfiguration(serial: Array("QEMU-AN386-0001".utf8), firmware: FirmwareVersion(major: 0, minor: 1, patch: 0))
  }
}
