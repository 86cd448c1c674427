/// The QEMU machines the CallAlert firmware runs on, each with its image and how QEMU is told about it.
public enum QemuMachine: String, Sendable, CaseIterable {
  /// ARM AN386 on the MPS2 FPGA board (Cortex-M4): `firmware/mps2-an386`, debug console on UART1.
  case mps2An386 = "mps2-an386"
  /// The BBC micro:bit v1 (nRF51822, Cortex-M0): `firmware/microbit-v1`, its one UART the protocol line;
  /// the debug console goes through ARM semihosting, switched on by a word the loader places in RAM.
  case microbit

  /// QEMU's `-M` name.
  public var qemuName: String { rawValue }

  /// The image `make firmware` builds for this machine, relative to the repository root.
  public var defaultImage: String {
    switch self {
    case .mps2An386: "firmware/build/callalert-mps2-an386.elf"
    case .microbit: "firmware/build/callalert-microbit-v1.elf"
    }
  }

  /// Where the firmware's entropy seed word lives (`noinit_t.host_seed` in its board support).
  public var seedAddress: UInt32 {
    switch self {
    case .mps2An386: 0x203F_00FC
    case .microbit: 0x2000_3FFC
    }
  }

  /// The serial number the image reports in INFO.
  public var serial: String {
    switch self {
    case .mps2An386: "QEMU-AN386-0001"
    case .microbit: "MICROBIT-V1-0001"
    }
  }

  /// The arguments that route the firmware's debug console to `debugLog` (nil: drop it).
  func debugConsoleArguments(_ debugLog: String?) -> [String] {
    switch self {
    case .mps2An386:
      return ["-serial", debugLog.map { "file:\($0)" } ?? "null"]
    case .microbit:
      guard let debugLog else { return [] }
      // noinit_t.semihosting = "SEMI": the firmware only issues semihosting calls when this is set (on a
      // real board, with no debugger attached, they would fault).
      return [
        "-chardev", "file,id=callalert-debug,path=\(debugLog)",
        "-semihosting-config", "enable=on,target=native,chardev=callalert-debug",
        "-device", "loader,addr=0x20003FF8,data=0x53454d49,data-len=4",
      ]
    }
  }
}
