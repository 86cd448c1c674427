import CallAlertBoardCore

/// The pattern flash of this board: the nRF52833's internal flash through the NVMC (4 KiB pages).
typealias PatternFlash = NVMCFlash

extension BoardConfiguration {
  /// The micro:bit v2: the reference board's capabilities (one buzzer on pin 0, one motor on pin 1, two LEDs
  /// shown on the matrix, one button: A or B, 16 slots, 1 024-byte payloads, window 8).
  static var thisBoard: BoardConfiguration {
    BoardConfiguration(
      serial: Array("MICROBIT-V2-0001".utf8), firmware: FirmwareVersion(major: 0, minor: 1, patch: 0))
  }
}
