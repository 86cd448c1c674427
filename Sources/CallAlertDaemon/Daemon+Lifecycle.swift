import CallAlertValues
import Logging

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

/// The daemon's start and end as an operator sees them: one daemon per socket and history, a history of its
/// own for `--simulate`, and calls closed as interrupted when it stops.
extension Daemon {
  /// The history `run --simulate` uses unless `--history` names one: beside the configured one, so that
  /// simulated calls never mix with real ones (`history.sqlite` -> `history-simulate.sqlite`).
  public static func simulateHistoryPath(_ path: String) -> String {
    let url = URL(fileURLWithPath: path)
    let stem = url.deletingPathExtension().lastPathComponent
    let name = url.pathExtension.isEmpty ? "\(stem)-simulate" : "\(stem)-simulate.\(url.pathExtension)"
    return url.deletingLastPathComponent().appendingPathComponent(name).path
  }

  /// Takes the locks of the socket and of the history; a daemon already holding either is named by its PID.
  /// A history whose lock file cannot even be made (its folder is missing or read-only) is one the daemon runs
  /// without (degraded, see ``HistoryWriter``): ringing never depends on the disk. A second daemon is refused.
  static func lockInstance(
    _ configuration: DaemonConfiguration, logger: Logger
  ) throws(DaemonStartError) -> [InstanceLock] {
    // The socket's folder is checked (and the private default one made) before its lock goes there: the lock
    // made every missing folder of `--socket /no/such/dir/x.sock` on its own, mode 0755.
    do {
      try SocketDirectory.prepare(forSocketAt: configuration.socketPath, userID: geteuid())
    } catch {
      throw DaemonStartError(description: "\(error)")
    }
    let socket = try InstanceLock.acquire(for: configuration.socketPath, what: "socket", makingFolders: false)
    do {
      return [socket, try InstanceLock.acquire(for: configuration.historyPath, what: "history")]
    } catch  where !error.isInUse {
      logger.warning("history not locked: \(error.description)")
      return [socket]
    }
  }

  /// At the end of a run, once every board was told to stop: the calls that were ringing are closed in the
  /// history as interrupted, at the time they stopped ringing; then the locks are released.
  static func finish(history: HistoryWriter, locks: [InstanceLock], logger: Logger) async {
    await history.closeInterrupted(at: Date())  // after the last events (the boards stopped at shutdown)
    await history.stop()
    for lock in locks { lock.release() }
  }
}
