import CallAlertQemu
import Testing

/// The arguments QEMU gets for each machine: the micro:bit has one UART, so its debug console goes through
/// semihosting, switched on in the firmware only when a log is wanted.
@Suite("QEMU machines")
struct QemuMachineTests {
  @Test("mps2-an386: debug console on the second UART, seed at 0x203F00FC")
  func mps2() {
    let arguments = QemuBoard(image: "fw.elf", debugLog: "/tmp/log").arguments(seed: 0x1234)
    #expect(arguments.starts(with: ["-M", "mps2-an386"]))
    #expect(arguments.contains("file:/tmp/log"))
    #expect(arguments.contains("loader,addr=0x203F00FC,data=0x1234,data-len=4"))
    #expect(!arguments.contains("-semihosting-config"))
  }

  @Test("microbit: one UART, the debug console by semihosting only with a log, seed at 0x20003FFC")
  func microbit() {
    let withLog = QemuBoard(image: "fw.elf", debugLog: "/tmp/log", machine: .microbit).arguments(seed: 0x1234)
    #expect(withLog.starts(with: ["-M", "microbit"]))
    #expect(withLog.filter { $0 == "-serial" }.count == 1)
    #expect(withLog.contains("enable=on,target=native,chardev=callalert-debug"))
    #expect(withLog.contains("loader,addr=0x20003FF8,data=0x53454d49,data-len=4"))
    #expect(withLog.contains("loader,addr=0x20003FFC,data=0x1234,data-len=4"))
    let quiet = QemuBoard(image: "fw.elf", machine: .microbit).arguments(seed: 0x1234)
    #expect(!quiet.contains("-semihosting-config"))
    #expect(QemuMachine.microbit.defaultImage == "firmware/build/callalert-microbit-v1.elf")
  }
}
