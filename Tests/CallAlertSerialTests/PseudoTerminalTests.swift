import CSerialPort
import CallAlertTestSupport
import CallAlertTransport
import SystemPackage
import Testing

@testable import CallAlertSerial

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The time limit is only a guard against a hang; every test synchronises on the streams themselves.
@Suite("Pseudo-terminal transport and descriptor channel", .timeLimit(.minutes(1)))
struct PseudoTerminalTests {
  @Test("every byte value crosses both ways intact, 0x00 included")
  func bytesFlowBothWays() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.close() }
    var fromMaster = pair.slave.incoming.makeAsyncIterator()
    var fromSlave = pair.master.incoming.makeAsyncIterator()

    async let down: Void = pair.master.write(everyByteValue)
    async let up: Void = pair.slave.write(everyByteValue.reversed())
    let atSlave = try await fromMaster.collect(everyByteValue.count)
    let atMaster = try await fromSlave.collect(everyByteValue.count)
    try await down
    try await up

    #expect(atSlave == everyByteValue)
    #expect(atMaster == everyByteValue.reversed())
  }

  @Test("a 64 KiB burst waits for room on EAGAIN and arrives intact")
  func burstWaitsForRoom() async throws {
    let (masterDescriptor, slavePath) = try PseudoTerminal.open()
    let slave = try PseudoTerminal.openSlave(slavePath)
    defer { slave.close() }
    let (blocked, signal) = AsyncStream.makeStream(of: Void.self)
    slave.observeWouldBlock { signal.yield() }
    let burst = pattern(64 * 1024)

    // Nobody reads the master yet, so the line (about 20 KiB) fills and the write must wait for room.
    async let sent: Void = slave.write(burst)
    var signals = blocked.makeAsyncIterator()
    await signals.next()
    #expect(slave.wouldBlockCount >= 1)

    let master = try DescriptorChannel(taking: masterDescriptor, name: "master")
    defer { master.close() }
    var fromSlave = master.incoming.makeAsyncIterator()
    let received = try await fromSlave.collect(burst.count)
    try await sent
    #expect(received == burst)

    // And the other way, with the reader running while the writer goes.
    let back = pattern(64 * 1024, seed: 7)
    var fromMaster = slave.incoming.makeAsyncIterator()
    async let sentBack: Void = master.write(back)
    let receivedBack = try await fromMaster.collect(back.count)
    try await sentBack
    #expect(receivedBack == back)
  }

  @Test("concurrent writes are never interleaved")
  func concurrentWritesStayWhole() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.close() }
    let chunks = (0..<8).map { [UInt8](repeating: UInt8($0 + 1), count: 8 * 1024) }
    var fromMaster = pair.slave.incoming.makeAsyncIterator()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for chunk in chunks {
        group.addTask { try await pair.master.write(chunk) }
      }
      let received = try await fromMaster.collect(chunks.count * 8 * 1024)
      try await group.waitForAll()
      // Each 8 KiB run of one value must be contiguous, in whatever order the writes were queued.
      let runs = stride(from: 0, to: received.count, by: 8 * 1024).map { received[$0..<$0 + 8 * 1024] }
      #expect(runs.allSatisfy { run in run.allSatisfy { $0 == run.first } })
      #expect(Set(runs.map(\.first)) == Set(chunks.map(\.first)))
    }
  }

  @Test("closing the master hangs up the slave: its stream ends with .disconnected after the data")
  func closingMasterDisconnectsSlave() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.close() }
    try await pair.master.write([0x42, 0x00, 0x43])
    var fromMaster = pair.slave.incoming.makeAsyncIterator()
    #expect(try await fromMaster.collect(3) == [0x42, 0x00, 0x43])

    pair.master.close()
    let (rest, end) = await fromMaster.drain()
    #expect(rest.isEmpty)
    #expect(end == .failed(.disconnected, port: pair.slavePath))
    let error = await serialPortError { try await pair.slave.write([1]) }
    #expect(error?.code == .disconnected)
  }

  @Test("a new master is close-on-exec and non-blocking, as documented")
  func aNewMasterIsCloseOnExec() throws {
    let (master, _) = try PseudoTerminal.open()
    defer { try? master.close() }
    let flags = fcntl(master.rawValue, F_GETFD)
    #expect(flags >= 0 && flags & FD_CLOEXEC != 0)
    let status = fcntl(master.rawValue, F_GETFL)
    #expect(status >= 0 && status & O_NONBLOCK != 0)
  }

  @Test("closing the slave hangs up the master (EIO): its stream ends with .disconnected")
  func closingSlaveDisconnectsMaster() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.close() }
    try await pair.slave.write([7, 8, 9])
    pair.slave.close()
    var fromSlave = pair.master.incoming.makeAsyncIterator()
    let (bytes, end) = await fromSlave.drain()
    #expect(bytes == [7, 8, 9])
    #expect(end == .failed(.disconnected, port: pair.master.name))
  }

  @Test("close is idempotent, finishes the stream normally and fails later writes with .closed")
  func closeIsIdempotent() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.close() }
    pair.slave.close()
    pair.slave.close()
    await pair.slave.waitUntilReleased()
    pair.slave.close()
    await pair.slave.waitUntilReleased()

    var fromMaster = pair.slave.incoming.makeAsyncIterator()
    #expect(await fromMaster.drain().end == .finished)
    let error = await serialPortError { try await pair.slave.write([1, 2, 3]) }
    #expect(error?.code == .closed)
    #expect(error?.description == "port \(pair.slavePath) is closed")
  }

  @Test("a write waiting for room fails with .closed when the channel closes")
  func pendingWriteFailsOnClose() async throws {
    let (masterDescriptor, slavePath) = try PseudoTerminal.open()
    defer { try? masterDescriptor.close() }
    let slave = try PseudoTerminal.openSlave(slavePath)
    let (blocked, signal) = AsyncStream.makeStream(of: Void.self)
    slave.observeWouldBlock { signal.yield() }

    let sent = Task { await serialPortError { try await slave.write(pattern(64 * 1024)) } }
    var signals = blocked.makeAsyncIterator()
    await signals.next()
    slave.close()
    #expect(await sent.value?.code == .closed)
  }

  @Test("a second open of the same pseudo-terminal fails as busy")
  func secondOpenIsBusy() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.close() }
    let error = serialPortError { _ = try PseudoTerminal.openSlave(pair.slavePath) }
    #expect(error?.code == .busy)
    // The holder is this test process itself, found through /proc/locks.
    #expect(error?.description == "port \(pair.slavePath) is busy, held by this process (PID \(getpid()))")
    #expect(error?.function == "flock")
  }

  @Test("once the stream has ended the port can be opened again at once")
  func reopenAfterStreamEnds() async throws {
    // The master stays a bare descriptor until the end: a channel on it would see the slave's close as a
    // hang-up (EIO) and close the master, which destroys the pseudo-terminal.
    let (masterDescriptor, slavePath) = try PseudoTerminal.open()
    let slave = try PseudoTerminal.openSlave(slavePath)
    slave.close()
    var fromMaster = slave.incoming.makeAsyncIterator()
    _ = await fromMaster.drain()

    let again = try PseudoTerminal.openSlave(slavePath)
    defer { again.close() }
    let master = try DescriptorChannel(taking: masterDescriptor, name: "master")
    defer { master.close() }
    try await master.write([0xAA])
    var fromMasterAgain = again.incoming.makeAsyncIterator()
    #expect(try await fromMasterAgain.collect(1) == [0xAA])
  }

  @Test("the slave is marked exclusive (TIOCEXCL) while open, and the mark is cleared when it is released")
  func exclusiveMarkIsCleared() async throws {
    let (masterDescriptor, slavePath) = try PseudoTerminal.open()
    defer { try? masterDescriptor.close() }
    let observer = try PseudoTerminal.holdOpen(slavePath: slavePath)  // sees the tty's flags, takes no lock
    defer { try? observer.close() }
    #expect(callalert_is_exclusive(observer.rawValue) == 0)

    let slave = try PseudoTerminal.openSlave(slavePath)
    #expect(callalert_is_exclusive(observer.rawValue) == 1)
    slave.close()
    await slave.waitUntilReleased()
    // Left set, the mark would outlive the descriptor (the tty lives as long as the master) and make every
    // later open by a non-root host fail with EBUSY; root is exempt, so this checks the flag itself.
    #expect(callalert_is_exclusive(observer.rawValue) == 0)
  }

  @Test("a missing path fails as no such port")
  func missingPathIsNoSuchPort() {
    let error = serialPortError { _ = try PseudoTerminal.openSlave("/dev/pts/987654") }
    #expect(error?.code == .noSuchPort)
    #expect(error?.description == "no such port /dev/pts/987654")
  }

  @Test("a path that is not a terminal is refused")
  func nonTerminalIsRefused() {
    let error = serialPortError { _ = try PseudoTerminal.openSlave("/dev/null") }
    #expect(error?.code == .notASerialPort)
    #expect(error?.description == "/dev/null is not a serial port (not a terminal)")
  }

  @Test("SerialPort.open takes a symbolic link to a pseudo-terminal and names the link in errors")
  func symbolicLinkThroughSerialPortOpen() async throws {
    let (masterDescriptor, slavePath) = try PseudoTerminal.open()
    let master = try DescriptorChannel(taking: masterDescriptor, name: "master")
    defer { master.close() }
    let link = "/tmp/callalert-serial-test-\(getpid())-\(slavePath.split(separator: "/").last!)"
    unlink(link)
    #expect(symlink(slavePath, link) == 0)
    defer { unlink(link) }
    #expect(PseudoTerminal.isSlavePath(link))

    let port = try SerialPort.open(link)
    defer { port.close() }
    #expect(port.name == link)
    try await port.write([1, 2, 3])
    var fromSlave = master.incoming.makeAsyncIterator()
    #expect(try await fromSlave.collect(3) == [1, 2, 3])

    let error = serialPortError { _ = try SerialPort.open(link) }
    #expect(error?.description == "port \(link) is busy, held by this process (PID \(getpid()))")
  }

  @Test("a slave held open keeps the master up while hosts disconnect and reconnect")
  func heldSlaveKeepsMasterAlive() async throws {
    let (masterDescriptor, slavePath) = try PseudoTerminal.open()
    let keepAlive = try PseudoTerminal.holdOpen(slavePath: slavePath)
    defer { try? keepAlive.close() }
    let board = try DescriptorChannel(taking: masterDescriptor, name: "board")
    defer { board.close() }
    var atBoard = board.incoming.makeAsyncIterator()

    let first = try PseudoTerminal.openSlave(slavePath)
    try await first.write([0x01])
    #expect(try await atBoard.collect(1) == [0x01])
    first.close()
    await first.waitUntilReleased()

    let second = try await openSlaveOnceForkedCopiesAreGone(slavePath)
    defer { second.close() }
    try await second.write([0x02])
    #expect(try await atBoard.collect(1) == [0x02])  // the board's stream did not end in between
    try await board.write([0x03])
    var atHost = second.incoming.makeAsyncIterator()
    #expect(try await atHost.collect(1) == [0x03])
  }

  @Test("a terminal left with VMIN = 0 still reads 0 bytes only on hang-up")
  func zeroByteReadMeansHangUpEvenWithVMINZero() async throws {
    let (masterDescriptor, slavePath) = try PseudoTerminal.open()
    let master = try DescriptorChannel(taking: masterDescriptor, name: "master")
    defer { master.close() }
    // What libserialport's sp_open leaves behind: VMIN = VTIME = 0, where an empty read returns 0.
    let raw = open(slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK)
    #expect(raw >= 0)
    var settings = termios()
    tcgetattr(raw, &settings)
    cfmakeraw(&settings)
    withUnsafeMutableBytes(of: &settings.c_cc) {
      $0[Int(VMIN)] = 0
      $0[Int(VTIME)] = 0
    }
    tcsetattr(raw, TCSANOW, &settings)

    let slave = try DescriptorChannel(takingTerminal: FileDescriptor(rawValue: raw), name: slavePath)
    defer { slave.close() }
    var fromMaster = slave.incoming.makeAsyncIterator()
    try await master.write([0x10])
    #expect(try await fromMaster.collect(1) == [0x10])
    try await master.write([0x11])  // a channel that took the empty read for a hang-up would have ended
    #expect(try await fromMaster.collect(1) == [0x11])

    let probe = open(slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK)
    defer { close(probe) }
    tcgetattr(probe, &settings)
    #expect(withUnsafeBytes(of: settings.c_cc) { $0[Int(VMIN)] } == 1)
  }

  @Test("cancelling the task that reads closes the channel")
  func cancellingTheReaderCloses() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.close() }
    let (started, signal) = AsyncStream.makeStream(of: Void.self)
    let reader = Task {
      signal.yield()
      for try await _ in pair.slave.incoming {}
    }
    var signals = started.makeAsyncIterator()
    await signals.next()
    reader.cancel()
    await pair.slave.waitUntilReleased()
    let error = await serialPortError { try await pair.slave.write([1]) }
    #expect(error?.code == .closed)
  }
}

/// Opens a pseudo-terminal's slave that this process has just closed. The exclusive lock (flock) belongs to the
/// open file, not the descriptor, and a child that another test of this process forks meanwhile holds a copy
/// of every descriptor until its exec closes them: for that moment the closed descriptor's lock is still held,
/// and the open is refused as busy, "held by this process". Nothing signals the child's exec, so the open is
/// tried again, every 5 ms for at most 5 s.
func openSlaveOnceForkedCopiesAreGone(_ path: String) async throws -> DescriptorChannel {
  let giveUp = ContinuousClock.now + .seconds(5)
  while true {
    switch Result(catching: { () throws(SerialPortError) in try PseudoTerminal.openSlave(path) }) {
    case .success(let channel): return channel
    case .failure(let error) where error.code == .busy && ContinuousClock.now < giveUp:
      try await Task.sleep(for: .milliseconds(5))
    case .failure(let error): throw error
    }
  }
}
