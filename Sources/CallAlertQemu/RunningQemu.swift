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

/// A QEMU process running the firmware, started by ``QemuBoard/start(seed:timeout:)`` and stopped by its
/// process id.
///
/// A thread reaps QEMU as soon as it exits, whoever ended it; ``stop()`` may be called from anywhere (a signal
/// handler's closure included), any number of times. QEMU never outlives its `RunningQemu`: one released while
/// QEMU runs stops it.
public final class RunningQemu: Sendable {
  /// QEMU's process id.
  public var pid: pid_t { process.pid }
  /// The pseudo-terminal of the firmware's UART0, such as `/dev/pts/3`: open it as a board's serial line.
  ///
  /// QEMU drops what the firmware sends while no process holds the slave open, and notices a host that opens
  /// it only about once a second; a long-lived owner holds it open (`PseudoTerminal.holdOpen(slavePath:)`).
  public let pseudoTerminalPath: String
  /// Where the firmware's debug console (UART1) is written, if anywhere (``QemuBoard/debugLog``).
  public let debugLog: String?

  private let process: ChildProcess

  init(process: ChildProcess, pseudoTerminalPath: String, debugLog: String?) {
    self.process = process
    self.pseudoTerminalPath = pseudoTerminalPath
    self.debugLog = debugLog
  }

  deinit {
    process.stop()
  }

  /// Whether ``stop()`` ended QEMU (rather than QEMU exiting by itself before it was called).
  public var wasStopped: Bool { process.wasStopped }

  /// QEMU's exit status once it has exited (its exit code, or 128 plus the signal that ended it); nil while it
  /// runs.
  public var exitStatus: Int32? { process.exitStatus }

  /// Asks QEMU to exit, without waiting: sends SIGTERM to its process id (QEMU exits cleanly on it).
  ///
  /// Idempotent: the signal is sent once, and never after QEMU has exited (so never to another process that
  /// reused the id). ``waitForExit()`` waits for the end.
  ///
  /// The corresponding C function is `kill`.
  public func stop() {
    process.stop()
  }

  /// Waits until QEMU has exited; returns its exit status (its exit code, or 128 plus the signal that ended it).
  ///
  /// The corresponding C functions are `waitid` and `waitpid`, on a thread of their own.
  @discardableResult
  public func waitForExit() async -> Int32 {
    await process.waitForExit()
  }

  /// Stops QEMU (``stop()``) and waits until it has exited (``waitForExit()``); returns its exit status.
  @discardableResult
  public func stopAndWait() async -> Int32 {
    process.stop()
    return await process.waitForExit()
  }

  /// What the firmware has written on its debug console so far; nil without a ``debugLog`` or when the file
  /// cannot be read (it was removed, say).
  public func readDebugLog() -> String? {
    guard let debugLog, let data = FileManager.default.contents(atPath: debugLog) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }
}
