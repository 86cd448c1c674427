import CallAlertBoardCore

/// The pattern flash of this board: the nRF51's internal flash through the NVMC (1 KiB pages, 4-byte words).
typealias PatternFlash = NVMCFlash

extension BoardConfiguration {
  /// The micro:bit v1: the reference board's capabilities (one buzzer on pin 0, one motor on pin 1, two LEDs
  /// shown on the matrix, one button: A or B, 16 slots, a 31 KiB table) but 256-byte payloads and a window of
  /// 2: the link keeps the answers of the last `window` commands for retransmissions, and 8 answers of 1 KiB
  /// would not fit in 16 KiB of RAM beside everything else.
  static var thisBoard: BoardConfiguration {
    var configuration = BoardConfiguration(
      serial: Array("MICROBIT-V1-0001".utf8), firmware: FirmwareVersion(major: 0, minor: 1, patch: 0))
    configuration.maxPayload = 256
    configuration.window = 2
    return configuration
  }
}
