import CallAlertSimulation
import Clocks
import Dispatch
import Foundation
import Logging
import Synchronization
import Testing

@testable import CallAlertDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// Running under systemd: readiness on NOTIFY_SOCKET, journal-friendly log lines, a missing board logged once.
@Suite("Service manager", .timeLimit(.minutes(1)))
struct ServiceManagerTests {
  /// A datagram socket standing in for systemd's notification socket.
  final class NotifySocket: Sendable {
    let path: String
    let descriptor: CInt

    init() throws {
      path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))").path
      descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
      }
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      try #require(bound == 0)
      // Every wait is bounded: a datagram that never comes fails the test after 10 s.
      var timeout = timeval(tv_sec: 10, tv_usec: 0)
      setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, or nil after the timeout; received off the cooperative pool.
    func receive() async -> String? {
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          var buffer = [UInt8](repeating: 0, count: 4096)
          let count = recv(self.descriptor, &buffer, buffer.count, 0)
          continuation.resume(returning: count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil)
        }
      }
    }

    deinit {
      close(descriptor)
      unlink(path)
    }
  }

  @Test func readyAndReloadingReachTheSocket() async throws {
    let listener = try NotifySocket()
    let notifier = SystemdNotifier(socketPath: listener.path)
    #expect(notifier.ready(status: "serving"))
    #expect(await listener.receive() == "READY=1\nSTATUS=serving")
    #expect(notifier.reloading())
    let reloading = try #require(await listener.receive())
    #expect(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
  }

  @Test func withoutNotifySocketNothingIsSent() {
    #expect(!SystemdNotifier(socketPath: nil).ready())
    #expect(!SystemdNotifier(socketPath: "").ready())
    #expect(!SystemdNotifier(socketPath: "relative/path").ready())
  }

  /// READY=1 comes once the config is loaded and the control socket listens: a client connecting the moment
  /// systemd reports the service started is served.
  @Test func theDaemonIsReadyOnceItsSocketListens() async throws {
    let setup = try DaemonEndToEndTests.Setup(port: "auto")
    defer { try? FileManager.default.removeItem(at: setup.directory) }
    let listener = try NotifySocket()
    let options = DaemonOptions(configPath: setup.config, simulate: true, readStandardInput: false).withVirtualBoards()
    let daemon = Task {
      try await Daemon.run(
        options: options, logger: Logger(label: "test"), signals: [],
        notifier: SystemdNotifier(socketPath: listener.path))
    }
    let message = await listener.receive()
    #expect(message?.hasPrefix("READY=1") == true)
    let connected = try? ControlSocketClient.connect(setup.socket)
    #expect(connected != nil, "the control socket must listen when READY=1 is sent")
    if let connected { close(connected) }
    daemon.cancel()
    _ = await daemon.result
  }

  @Test func journalLinesCarryAPriorityAndNoTimestamp() {
    let lines = Mutex<[String]>([])
    var logger = Logger(label: "callalert") { label in
      JournalLogHandler(label: label, logLevel: .info) { line in lines.withLock { $0.append(line) } }
    }
    logger[metadataKey: "board"] = "desk"
    logger.warning("board lost:\nEIO", metadata: ["port": "/dev/ttyACM0"])
    logger.debug("not written at info")
    logger.info("connected")
    #expect(
      lines.withLock { $0 } == [
        "<4>callalert: board lost: EIO board=desk port=/dev/ttyACM0\n", "<6>callalert: connected board=desk\n",
      ])
  }

  @Test func theJournalIsDetectedByStandardErrorsDeviceAndInode() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString.prefix(8))")
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: file) }
    let descriptor = open(file.path, O_WRONLY)
    defer { close(descriptor) }
    var status = stat()
    fstat(descriptor, &status)
    let stream = "\(status.st_dev):\(status.st_ino)"
    #expect(DaemonLogging.standardErrorIsJournal(journalStream: stream, descriptor: descriptor))
    #expect(
      !DaemonLogging.standardErrorIsJournal(
        journalStream: "\(status.st_dev):\(status.st_ino + 1)", descriptor: descriptor))
    #expect(!DaemonLogging.standardErrorIsJournal(journalStream: nil, descriptor: descriptor))
    #expect(!DaemonLogging.standardErrorIsJournal(journalStream: "garbage", descriptor: descriptor))
  }

  /// A board left unplugged logged "not available" at every retry (every 5 s, for ever); now once, then again
  /// only when the reason changes. The retries go on at debug level.
  @Test func aMissingBoardIsLoggedOnceAndAgainWhenTheReasonChanges() async throws {
    struct Unavailable: Error, CustomStringConvertible { var description: String }
    let entries = Entries()
    let logger = Logger(label: "test") { _ in Collector(entries: entries) }
    let reason = Mutex("no CallAlert board found")
    let clock = TestClock()
    let driver = BoardDriver(
      name: "desk", clock: clock, logger: logger,
      connect: { throw Unavailable(description: reason.withLock { $0 }) }, submit: { _ in })
    let running = Task { await driver.run() }

    /// Moves the test clock on in small steps until `condition` holds; false after 45 s of real time (the
    /// attempts take about 200 steps; with 10 s a parallel run on a loaded machine once ran out of time).
    func advance(until condition: () -> Bool) async -> Bool {
      let deadline = ContinuousClock.now.advanced(by: .seconds(45))
      while !condition() {
        if ContinuousClock.now > deadline { return false }
        await clock.advance(by: .milliseconds(100))
        await Task.yield()
      }
      return true
    }
    let unavailable = { entries.withLock { $0 }.filter { $0.1.contains("not available") } }
    try #require(await advance { unavailable().count >= 6 }, "six attempts")
    reason.withLock { $0 = "/dev/ttyACM0: permission denied" }
    try #require(
      await advance { unavailable().filter { $0.1.contains("permission denied") }.count >= 2 }, "two more attempts")
    running.cancel()
    _ = await running.value

    let logged = unavailable()
    let changed = try #require(logged.firstIndex { $0.1.contains("permission denied") })
    #expect(changed >= 6)
    #expect(logged[0].0 == .notice)
    #expect(logged[1..<changed].allSatisfy { $0.0 == .debug })
    #expect(logged[changed].0 == .notice)
    #expect(logged[(changed + 1)...].allSatisfy { $0.0 == .debug })
  }

  /// Records each entry's level and message.
  final class Entries: Sendable {
    private let list = Mutex<[(Logger.Level, String)]>([])
    func withLock<R>(_ body: (inout [(Logger.Level, String)]) -> R) -> R { list.withLock { body(&$0) } }
  }

  struct Collector: LogHandler {
    let entries: Entries
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { entries.withLock { $0.append((event.level, "\(event.message)")) } }
  }
}
