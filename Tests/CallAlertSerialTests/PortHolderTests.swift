import CallAlertTransport
import SystemPackage
import Testing

@testable import CallAlertSerial

#if canImport(Glibc)
  import Glibc
#endif

/// A busy port names who holds it, so that "busy" is something a user can act on.
@Suite struct PortHolderTests {
  @Test func aPortHeldInThisProcessIsBusyAndNamesThisProcess() throws {
    let (master, slavePath) = try PseudoTerminal.open()
    defer { try? master.close() }
    let holder = try PseudoTerminal.openSlave(slavePath)
    defer { holder.close() }
    let error = #expect(throws: SerialPortError.self) { _ = try SerialPort.open(slavePath) }
    #expect(error?.code == .busy)
    #expect(error?.holder?.pid == getpid())
    #expect(error?.description == "port \(slavePath) is busy, held by this process (PID \(getpid()))")
  }

  @Test func proclocksIsReadForTheLocksOwner() {
    let locks = """
      1: POSIX  ADVISORY  WRITE 23214 fe:00:5351258 1073741824 1073742335
      2: FLOCK  ADVISORY  WRITE 4242 00:19:7 0 EOF
      2: -> FLOCK  ADVISORY  WRITE 5151 00:19:7 0 EOF
      3: OFDLCK ADVISORY  READ  -1 00:19:8 0 EOF
      """
    // 00:19 is major 0, minor 0x19.
    let device: UInt64 = 0x19
    #expect(PortHolder.lockOwner(inLocks: locks, device: device, inode: 7) == 4242, "the holder, not the waiter")
    #expect(PortHolder.lockOwner(inLocks: locks, device: device, inode: 8) == nil, "no PID for an OFD lock")
    #expect(PortHolder.lockOwner(inLocks: locks, device: device, inode: 9) == nil)
    // Linux's dev_t: major 136 (pseudo-terminals), minor 300.
    let pts: UInt64 = (136 << 8) | (300 & 0xff) | ((300 & ~0xff) << 12)
    #expect(PortHolder.major(pts) == 136 && PortHolder.minor(pts) == 300)
  }

  @Test func aHoldersNameCannotDriveTheTerminal() {
    #expect(PortHolder.printable("evil\u{1B}]0;owned\u{07}") == "evil\\u001B]0;owned\\u0007")
    #expect(PortHolder(pid: 4242, command: "callalert run").description == "callalert run (PID 4242)")
    #expect(PortHolder(pid: 4242, command: nil).description == "PID 4242")
  }

  @Test func thisProcesssCommandLineIsRead() {
    let command = PortHolder.commandLine(of: getpid())
    #expect(command?.isEmpty == false)
  }
}
