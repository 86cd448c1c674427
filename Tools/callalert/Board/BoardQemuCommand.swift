import ArgumentParser
import CallAlertSerial
import Foundation

extension CallAlertCommand.Board {
  /// `callalert board qemu`: the Embedded Swift firmware in QEMU, its UART behind a pseudo-terminal.
  struct Qemu: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run the board firmware in QEMU (mps2-an386) behind a pseudo-terminal until SIGINT or SIGTERM.",
      discussion: """
        Starts qemu-system-arm with the Embedded Swift firmware (built with `make firmware` first when the \
        default image is missing), puts the firmware's UART0 on a pseudo-terminal and prints its path; any host \
        can open it like a real board's port: callalert board info --port /dev/pts/N. The pseudo-terminal is \
        held open, so hosts may come and go. The firmware's debug console (UART1) goes to --debug-log.
        """
    )

    @Option(name: .long, help: ArgumentHelp("Make PATH a symbolic link to the pseudo-terminal.", valueName: "path"))
    var link: String?

    @Option(name: .long, help: ArgumentHelp("The firmware image.", valueName: "elf"))
    var image: String = QemuBoardLauncher.defaultImage

    @Option(name: .long, help: ArgumentHelp("The QEMU executable.", valueName: "path"))
    var qemu: String = "qemu-system-arm"

    @Option(name: .long, help: ArgumentHelp("Write the firmware's debug console (UART1) here.", valueName: "file"))
    var debugLog: String?

    @Flag(
      name: .long, inversion: .prefixedNo,
      help: ArgumentHelp(
        "Tie QEMU's clock to executed instructions (-icount shift=auto).",
        discussion:
          "Off by default: the firmware counts a 25 MHz hardware timer, so without -icount board time follows the host's clock; with it, it was measured 2-4 % fast."
      ))
    var icount = false

    func run() async throws {
      let launcher = QemuBoardLauncher(qemu: qemu, image: image, debugLog: debugLog, icount: icount)
      try await launcher.buildImageIfMissing(isDefault: image == QemuBoardLauncher.defaultImage)
      let board = try await launcher.start()
      // From here on QEMU (in its own process group, so Ctrl-C reaches only this command) is stopped by pid.
      let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { board.stop() }
      defer { signals.cancel() }
      let keepAlive: FileDescriptor
      do {
        // Held open so QEMU always sees a connected line: it drops what the firmware sends otherwise, and
        // notices a host that opens the line only once a second.
        keepAlive = try PseudoTerminal.holdOpen(slavePath: board.slavePath)
        if let link { try makeLink(link, to: board.slavePath) }
      } catch {
        board.stop()
        _ = await board.waitForExit()
        throw error
      }
      defer {
        if let link { try? FileManager.default.removeItem(atPath: link) }
        keepAlive.close()
      }
      FileHandle.standardError.write(
        Data(
          ("QEMU board (pid \(board.pid)) on \(board.slavePath)"
            + "\(link.map { " (link: \($0))" } ?? ""); connect with: callalert board info --port "
            + "\(link ?? board.slavePath)\n").utf8))
      FileHandle.standardOutput.write(Data((board.slavePath + "\n").utf8))

      let status = await board.waitForExit()
      if !board.wasStopped && status != 0 {
        throw CommandFailure("QEMU exited with status \(status)")
      }
    }

    private func makeLink(_ link: String, to target: String) throws {
      let manager = FileManager.default
      if let attributes = try? manager.attributesOfItem(atPath: link) {
        guard attributes[.type] as? FileAttributeType == .typeSymbolicLink else {
          throw ValidationError("--link \(link) exists and is not a symbolic link; not replacing it")
        }
        try manager.removeItem(atPath: link)
      }
      try manager.createSymbolicLink(atPath: link, withDestinationPath: target)
    }
  }
}

/// Starts QEMU's mps2-an386 with the CallAlert firmware and finds the pseudo-terminal of its UART0.
///
/// The command line: `-M mps2-an386 -nographic -monitor none -kernel IMAGE -serial pty -serial file:LOG|null
/// -device loader,addr=0x203F00FC,data=SEED,data-len=4 [-icount shift=auto]`. The loader places a random seed
/// where the firmware's entropy pool reads it at every boot (QEMU has no random-number generator for the
/// boot nonce). QEMU prints `char device redirected to /dev/pts/N (label serial0)` on its standard output.
struct QemuBoardLauncher {
  /// Where `make firmware` writes the image, relative to the repository root.
  static let defaultImage = "firmware/build/callalert-mps2-an386.elf"
  /// The firmware's seed word (see firmware/Support/board.c, `noinit_t.host_seed`).
  static let seedAddress = "0x203F00FC"

  var qemu: String
  var image: String
  var debugLog: String?
  var icount: Bool

  /// QEMU's arguments.
  func arguments(seed: UInt32) -> [String] {
    var arguments = [
      "-M", "mps2-an386", "-nographic", "-monitor", "none", "-kernel", image,
      "-serial", "pty", "-serial", debugLog.map { "file:\($0)" } ?? "null",
      "-device", "loader,addr=\(Self.seedAddress),data=0x\(String(seed, radix: 16)),data-len=4",
    ]
    if icount { arguments += ["-icount", "shift=auto"] }
    return arguments
  }

  /// Runs `make firmware` when the default image does not exist yet (from the repository root).
  func buildImageIfMissing(isDefault: Bool) async throws {
    guard !FileManager.default.fileExists(atPath: image) else { return }
    guard isDefault, FileManager.default.fileExists(atPath: "Makefile") else {
      throw ValidationError("no firmware image at \(image); run `make firmware` in the repository first")
    }
    FileHandle.standardError.write(Data("building the firmware: make firmware\n".utf8))
    let make = try RunningQemuBoard.spawn("make", arguments: ["firmware"], captureOutput: false)
    let status = await make.waitForExit()
    guard status == 0, FileManager.default.fileExists(atPath: image) else {
      throw CommandFailure("`make firmware` failed (status \(status))")
    }
  }

  /// Starts QEMU and waits (at most 10 s) for the pseudo-terminal's path.
  func start() async throws -> RunningQemuBoard {
    let board: RunningQemuBoard
    do {
      board = try RunningQemuBoard.spawn(qemu, arguments: arguments(seed: UInt32.random(in: 1...UInt32.max)))
    } catch {
      throw CommandFailure("cannot start \(qemu): \(error) (install it with: sudo apt-get install qemu-system-arm)")
    }
    guard let path = await board.pseudoTerminalPath() else {
      board.stop()
      _ = await board.waitForExit()
      throw CommandFailure("\(qemu) did not report a pseudo-terminal (is \(image) a firmware image?)")
    }
    board.slavePath = path
    return board
  }

  /// The path in QEMU's `char device redirected to /dev/pts/N (label serial0)`, if `line` is that line.
  static func pseudoTerminalPath(in line: String) -> String? {
    let prefix = "char device redirected to "
    guard let range = line.range(of: prefix), line.contains("(label serial0)") else { return nil }
    return line[range.upperBound...].split(separator: " ").first.map(String.init)
  }
}

/// A QEMU process started by ``QemuBoardLauncher``, stopped by its process id.
///
/// Started with posix_spawn rather than Foundation's Process: the child must start with no signal blocked
/// (a thread of this process may block SIGTERM, and QEMU, which does not unblock it, would then never see
/// it) and in its own process group (Ctrl-C reaches this command, which stops QEMU itself); and waiting for
/// it must not spin (Process.waitUntilExit polls a run loop on Linux).
final class RunningQemuBoard: @unchecked Sendable {  // slavePath is set once before sharing; the rest is locked
  /// QEMU's process id.
  let pid: pid_t
  /// The pseudo-terminal of the firmware's UART0.
  var slavePath = ""
  private let output: Int32
  private let lock = NSLock()
  private var stopped = false
  private var exitStatus: Int32?
  private var exitWaiters: [CheckedContinuation<Int32, Never>] = []

  private init(pid: pid_t, output: Int32) {
    self.pid = pid
    self.output = output
    Thread.detachNewThread { [self] in
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      // WIFEXITED ? WEXITSTATUS : 128 + signal
      let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
      let waiters = lock.withLock {
        exitStatus = code
        defer { exitWaiters = [] }
        return exitWaiters
      }
      for waiter in waiters { waiter.resume(returning: code) }
    }
  }

  /// Starts `executable` (looked up on PATH) with its standard output on a pipe (or, without `captureOutput`,
  /// on this process's standard error) and its standard error inherited.
  static func spawn(_ executable: String, arguments: [String], captureOutput: Bool = true) throws -> RunningQemuBoard {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw CommandFailure("pipe: \(String(cString: strerror(errno)))") }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, captureOutput ? fds[1] : STDERR_FILENO, STDOUT_FILENO)
    posix_spawn_file_actions_addclose(&actions, fds[1])
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, executable, &actions, &attributes, argv, environ)
    close(fds[1])
    guard result == 0 else {
      close(fds[0])
      throw CommandFailure(String(cString: strerror(result)))
    }
    if !captureOutput { close(fds[0]) }
    return RunningQemuBoard(pid: pid, output: captureOutput ? fds[0] : -1)
  }

  /// Whether ``stop()`` ended it (rather than QEMU exiting by itself).
  var wasStopped: Bool { lock.withLock { stopped } }

  /// Sends SIGTERM to QEMU's process id (QEMU exits cleanly on it).
  func stop() {
    let running = lock.withLock {
      stopped = true
      return exitStatus == nil
    }
    if running { kill(pid, SIGTERM) }
  }

  /// Waits until QEMU has exited; returns its exit status (128 + the signal when a signal ended it).
  func waitForExit() async -> Int32 {
    await withCheckedContinuation { continuation in
      let status = lock.withLock {
        if exitStatus == nil { exitWaiters.append(continuation) }
        return exitStatus
      }
      if let status { continuation.resume(returning: status) }
    }
  }

  /// Reads QEMU's standard output until the pseudo-terminal line (nil if QEMU ends or 10 s pass first), then
  /// keeps copying the rest to standard error, so QEMU never blocks on a full pipe.
  func pseudoTerminalPath() async -> String? {
    let output = self.output
    return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
      let once = ResumeOnce(continuation)
      Thread.detachNewThread {
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
          let count = read(output, &buffer, buffer.count)
          if count < 0 && errno == EINTR { continue }
          if count <= 0 { break }
          if once.isDone {
            _ = buffer.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, count) }
            continue
          }
          text += String(decoding: buffer[0..<count], as: UTF8.self)
          for line in text.split(separator: "\n") {
            if let path = QemuBoardLauncher.pseudoTerminalPath(in: String(line)) { once.resume(path) }
          }
        }
        close(output)
        once.resume(nil)
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + 10) { once.resume(nil) }
    }
  }
}

/// Resumes a continuation once, whichever of several racers comes first.
private final class ResumeOnce: @unchecked Sendable {  // guarded by lock
  private let lock = NSLock()
  private var continuation: CheckedContinuation<String?, Never>?

  init(_ continuation: CheckedContinuation<String?, Never>) {
    self.continuation = continuation
  }

  var isDone: Bool { lock.withLock { continuation == nil } }

  func resume(_ value: String?) {
    let pending = lock.withLock {
      defer { continuation = nil }
      return continuation
    }
    pending?.resume(returning: value)
  }
}
