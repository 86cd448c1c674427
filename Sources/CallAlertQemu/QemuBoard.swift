#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How to run the CallAlert board firmware in QEMU's mps2-an386: the QEMU executable, the image, where the
/// firmware's debug console goes, and how QEMU's clock runs.
///
/// ``start(seed:timeout:)`` runs `qemu-system-arm -M mps2-an386 -nographic -monitor none -kernel IMAGE
/// -serial pty -serial file:LOG|null -device loader,addr=0x203F00FC,data=SEED,data-len=4 [-icount shift=auto]`
/// (see ``arguments(seed:)``) and returns once QEMU has printed the pseudo-terminal of the firmware's UART0
/// (the protocol line); UART1, the debug console, goes to ``debugLog``. The loader places a random seed where
/// the firmware's entropy pool reads it at every boot: QEMU has no random-number generator for the boot nonce.
///
/// ```swift
/// let qemu = try await QemuBoard(image: QemuBoard.defaultImage, debugLog: "/tmp/board.log").start()
/// let line = try PseudoTerminal.openSlave(qemu.pseudoTerminalPath)   // a board's serial line
/// // …
/// await qemu.stopAndWait()
/// ```
public struct QemuBoard: Sendable {
  /// Where `make firmware` writes the image, relative to the repository root.
  public static let defaultImage = "firmware/build/callalert-mps2-an386.elf"

  /// The QEMU executable's name.
  public static let defaultExecutable = "qemu-system-arm"

  /// The firmware's seed word, which the loader device writes before the machine starts (see
  /// firmware/Support/board.c, `noinit_t.host_seed`).
  public static let seedAddress: UInt32 = 0x203F_00FC

  /// How long ``start(seed:timeout:)`` waits by default for QEMU to report its pseudo-terminal.
  public static let defaultStartTimeout: Duration = .seconds(10)

  /// The QEMU executable: a name looked up on PATH (by default `qemu-system-arm`) or a path.
  public var qemu: String
  /// The machine QEMU emulates (by default mps2-an386); the image must be built for it.
  public var machine: QemuMachine
  /// The firmware image (an ELF file) QEMU loads with `-kernel`.
  public var image: String
  /// Where the firmware's debug console (UART1) is written; nil drops it (`-serial null`).
  public var debugLog: String?
  /// Whether QEMU's clock follows executed instructions (`-icount shift=auto`).
  ///
  /// Off by default: the firmware counts a 25 MHz hardware timer, so without `-icount` board time follows the
  /// host's clock; with it, board time was measured to run 2-4 % fast.
  public var icount: Bool
  /// Whether QEMU's standard output, but for the pseudo-terminal line, is copied to this process's standard
  /// error (otherwise it is dropped; either way it is read, so QEMU never blocks on a full pipe).
  ///
  /// QEMU's standard error is always this process's.
  public var forwardsOutput: Bool
  /// Whether QEMU starts in a process group of its own.
  ///
  /// On for a command that handles Ctrl-C itself: the terminal's SIGINT then reaches only the command, which
  /// stops QEMU. Off by default: QEMU then receives the terminal's signals with this process, and does not
  /// outlive, say, a test run interrupted with Ctrl-C.
  public var ownProcessGroup: Bool

  /// Describes a QEMU board; ``start(seed:timeout:)`` starts it.
  public init(
    image: String = QemuBoard.defaultImage, qemu: String = QemuBoard.defaultExecutable, debugLog: String? = nil,
    icount: Bool = false, forwardsOutput: Bool = false, ownProcessGroup: Bool = false,
    machine: QemuMachine = .mps2An386
  ) {
    self.machine = machine
    self.qemu = qemu
    self.image = image
    self.debugLog = debugLog
    self.icount = icount
    self.forwardsOutput = forwardsOutput
    self.ownProcessGroup = ownProcessGroup
  }

  /// The image `make firmware` builds, in the repository at `root`.
  public static func defaultImage(inRepository root: String) -> String {
    root + "/" + defaultImage
  }

  /// The path of an executable file: `executable` itself when it contains a slash, else the first match in
  /// the folders of `searchPath` (by default the PATH environment variable); nil if there is none.
  ///
  /// The corresponding C function is `access` (with `X_OK`).
  public static func locate(_ executable: String = defaultExecutable, searchPath: String? = nil) -> String? {
    if executable.contains("/") { return access(executable, X_OK) == 0 ? executable : nil }
    let folders = searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return folders.split(separator: ":").map { "\($0)/\(executable)" }.first { access($0, X_OK) == 0 }
  }

  /// QEMU's arguments (without the executable) for a boot with the entropy seed `seed`.
  public func arguments(seed: UInt32) -> [String] {
    var arguments = ["-M", machine.qemuName, "-nographic", "-monitor", "none", "-kernel", image, "-serial", "pty"]
    arguments += machine.debugConsoleArguments(debugLog)
    arguments += [
      "-device",
      "loader,addr=0x\(String(machine.seedAddress, radix: 16, uppercase: true)),data=0x\(String(seed, radix: 16)),"
        + "data-len=4",
    ]
    if icount { arguments += ["-icount", "shift=auto"] }
    return arguments
  }

  /// The path in QEMU's `char device redirected to /dev/pts/N (label serial0)`, if `line` is that line.
  public static func pseudoTerminalPath(in line: String) -> String? {
    let prefix = "char device redirected to "
    guard let range = line.firstRange(of: prefix), line.contains("(label serial0)") else { return nil }
    return line[range.upperBound...].split(separator: " ").first.map(String.init)
  }

  /// Starts QEMU and returns once it has reported the pseudo-terminal of the firmware's UART0.
  ///
  /// - Parameters:
  ///   - seed: the entropy seed the loader places at ``seedAddress`` (nonzero; random by default, so every run
  ///     boots with a different nonce).
  ///   - timeout: how long to wait for the pseudo-terminal's path.
  /// - Throws: ``QemuError`` with code ``QemuError/Code/qemuNotFound``, ``QemuError/Code/imageNotFound``,
  ///   ``QemuError/Code/spawnFailed``, or ``QemuError/Code/noPseudoTerminal`` (QEMU is stopped and reaped
  ///   before that one is thrown).
  public func start(
    seed: UInt32 = .random(in: 1...UInt32.max), timeout: Duration = QemuBoard.defaultStartTimeout
  ) async throws(QemuError) -> RunningQemu {
    guard let executable = Self.locate(qemu) else { throw .qemuNotFound(qemu) }
    guard access(image, R_OK) == 0 else { throw .imageNotFound(image) }
    let (process, output) = try ChildProcess.spawn(
      executable, arguments: arguments(seed: seed), capturingOutput: true, ownProcessGroup: ownProcessGroup)
    switch await QemuOutputReader.pseudoTerminalPath(reading: output!, forwarding: forwardsOutput, timeout: timeout) {
    case .found(let path):
      return RunningQemu(process: process, pseudoTerminalPath: path, debugLog: debugLog)
    case .ended:
      process.stop()  // in case QEMU closed its output but lives on; a signal to an exited QEMU changes nothing
      let status = await process.waitForExit()
      throw .exitedEarly(qemu, image: image, status: status)
    case .timedOut:
      process.stop()
      _ = await process.waitForExit()
      throw .timedOut(qemu, image: image, after: timeout)
    }
  }

  /// Builds the firmware image with `make firmware` in the repository at `root`, `make`'s output going to
  /// standard error; returns once ``defaultImage(inRepository:)`` exists.
  ///
  /// - Throws: ``QemuError`` with code ``QemuError/Code/spawnFailed`` when `make` cannot be started, or
  ///   ``QemuError/Code/buildFailed`` when it fails or writes no image.
  public static func buildFirmware(inRepository root: String = ".") async throws(QemuError) {
    let (make, _) = try ChildProcess.spawn(
      "make", arguments: ["--no-print-directory", "-C", root, "firmware"], capturingOutput: false,
      ownProcessGroup: false)
    let status = await make.waitForExit()
    guard status == 0 else { throw .buildFailed(status: status) }
    let image = defaultImage(inRepository: root)
    guard access(image, R_OK) == 0 else { throw .buildWroteNoImage(image) }
  }
}
