import CallAlertInputs
import CallAlertVirtualBoard
import Foundation
import Logging

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

  /// Called with each in-process board `run --simulate` makes, by name: lets tests read its timeline.
  @TaskLocal static var virtualBoardCreated: (@Sendable (String, VirtualBoardRunner<ContinuousClock>) -> Void)?

  /// Takes the locks of the socket and of the history; a daemon already holding either is named by its PID.
  static func lockInstance(_ configuration: DaemonConfiguration) throws(DaemonStartError) -> [InstanceLock] {
    let socket = try InstanceLock.acquire(for: configuration.socketPath, what: "socket")
    let history = try InstanceLock.acquire(for: configuration.historyPath, what: "history")
    return [socket, history]
  }

  /// At the end of a run, once every board was told to stop: the calls that were ringing are closed in the
  /// history as interrupted, at the time they stopped ringing; then the locks are released.
  static func finish(history: HistoryWriter, locks: [InstanceLock], logger: Logger) async {
    await history.drain()  // the last events (the boards stopped at shutdown) reach the disk
    if let closed = await history.closeInterrupted(at: Date()), closed > 0 {
      logger.notice("closed \(closed) ringing call(s) as interrupted in the history")
    }
    for lock in locks { lock.release() }
  }
}
