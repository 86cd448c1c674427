import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The firmware image in QEMU: where it is, whether it can run here, and starting and stopping it.
///
/// The command line is the one `callalert board qemu` uses: `-M mps2-an386 -nographic -monitor none
/// -kernel IMAGE -serial pty -serial file:LOG -device loader,...` (a random seed for the boot nonce), without
/// `-icount`: the firmware's clock counts a 25 MHz hardware timer, so in plain (real-time) mode board time
/// follows the host's clock; `-icount shift=auto` was measured to run the board clock 2-4 % fast. The
/// checks use the ACTUATORS trace's board time, which is exact either way.
enum QemuFirmware {
  /// The repository root, from this file's path.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  /// The image `make firmware` builds.
  static let image = root + "/firmware/build/callalert-mps2-an386.elf"

  /// The QEMU executable on PATH, if any.
  static let qemu: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { $0 + "/qemu-system-arm" }.first { access($0, X_OK) == 0 }
  }()

  /// Where to keep the firmware's debug console logs (CALLALERT_QEMU_LOG_DIR); by default they are deleted
  /// when the board stops, after being checked for faults.
  static let keptLogDirectory = ProcessInfo.processInfo.environment["CALLALERT_QEMU_LOG_DIR"]

  static var hasQemu: Bool { qemu != nil }

  /// A source the image was built from that changed after the image, if any (`make firmware` rebuilds it).
  static let newerSource: String? = {
    var info = stat()
    guard stat(image, &info) == 0 else { return nil }
    let built = info.st_mtim.tv_sec
    let folders = [
      "Sources/CallAlertProtocol", "Sources/CallAlertBoardCore", "firmware/Application", "firmware/Support",
      "firmware/Support/include",
    ]
    for folder in folders {
      for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? [] {
        let path = folder + "/" + name
        if stat(root + "/" + path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mtim.tv_sec > built {
          return path
        }
      }
    }
    return nil
  }()
  static var hasImage: Bool { access(image, R_OK) == 0 }

  /// A QEMU process running the firmware.
  actor Process {
    let pid: pid_t
    nonisolated let slavePath: String
    nonisolated let debugLog: String
    private var exited = false

    init(pid: pid_t, slavePath: String, debugLog: String) {
      self.pid = pid
      self.slavePath = slavePath
      self.debugLog = debugLog
    }

    /// Stops QEMU by its process id (SIGTERM: QEMU exits cleanly) and reaps it; returns what the firmware
    /// wrote on its debug console (UART1).
    @discardableResult
    func stop() async -> String {
      guard !exited else { return "" }
      exited = true
      kill(pid, SIGTERM)
      let pid = self.pid
      await Task.detached {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      }.value
      let console = (try? String(contentsOfFile: debugLog, encoding: .utf8)) ?? ""
      if QemuFirmware.keptLogDirectory == nil { unlink(debugLog) }
      return console
    }
  }

  /// Starts QEMU with the image and returns once it has printed its pseudo-terminal's path.
  static func launch() async throws -> Process {
    guard let qemu else { throw LaunchError("qemu-system-arm is not installed") }
    let debugLog =
      (keptLogDirectory ?? NSTemporaryDirectory())
      + "/callalert-qemu-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
    let seed = UInt32.random(in: 1...UInt32.max)
    let arguments = [
      qemu, "-M", "mps2-an386", "-nographic", "-monitor", "none", "-kernel", image, "-serial", "pty",
      "-serial", "file:" + debugLog, "-device", "loader,addr=0x203F00FC,data=0x\(String(seed, radix: 16)),data-len=4",
    ]
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw LaunchError("pipe failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addclose(&actions, fds[1])
    // A clean signal mask: a thread of the test process may block SIGTERM, and QEMU would inherit that
    // and never see the SIGTERM that stops it.
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
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, qemu, &actions, &attributes, argv, environ)
    close(fds[1])
    guard result == 0 else {
      close(fds[0])
      throw LaunchError("cannot start \(qemu): \(String(cString: strerror(result)))")
    }
    let output = fds[0]
    // QEMU prints "char device redirected to /dev/pts/N (label serial0)" before the machine starts; the
    // rest of its output (nothing, normally) is read and dropped so QEMU never blocks on the pipe.
    let path = await Task.detached { () -> String? in
      var text = ""
      var buffer = [UInt8](repeating: 0, count: 1_024)
      while true {
        let count = read(output, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return nil }
        text += String(decoding: buffer[0..<count], as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: { $0.contains("(label serial0)") }),
          let range = line.range(of: "char device redirected to ")
        {
          return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
      }
    }.value
    Thread.detachNewThread {
      var buffer = [UInt8](repeating: 0, count: 1_024)
      while read(output, &buffer, buffer.count) > 0 {}
      close(output)
    }
    let process = Process(pid: pid, slavePath: path ?? "", debugLog: debugLog)
    guard path != nil else {
      await process.stop()
      throw LaunchError("QEMU reported no pseudo-terminal")
    }
    return process
  }

  struct LaunchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }
}
