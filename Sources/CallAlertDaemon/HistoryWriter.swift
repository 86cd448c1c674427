import CallAlertEngine
import CallAlertHistory
import Dispatch
import Foundation
import Logging

/// The daemon's way to the call history: writes run on a serial queue of their own, off the Swift
/// concurrency pool. A SQLite commit waits for the disk (WAL with fsync); a cooperative thread blocked on it
/// would hold up the engine and, on a small machine, the board commands behind it. Records keep their order,
/// and a query runs after every record handed in before it.
final class HistoryWriter: Sendable {
  private let history: CallHistory
  private let queue = DispatchQueue(label: "CallAlertDaemon.HistoryWriter")
  private let logger: Logger

  init(_ history: CallHistory, logger: Logger) {
    self.history = history
    self.logger = logger
  }

  /// Records an event; a failure is logged (the engine goes on without its history).
  func record(_ event: EngineEvent, at date: Date) {
    queue.async { [history, logger] in
      do { try history.record(event, at: date) } catch { logger.error("history: \(error)") }
    }
  }

  /// The most recent calls, after every record handed in so far.
  func calls(missedOnly: Bool, limit: Int) async throws -> [CallRecord] {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { [history] in
        continuation.resume(with: Result { try history.calls(missedOnly: missedOnly, limit: limit) })
      }
    }
  }

  /// Closes the calls still ringing as interrupted, ended at `date` (at shutdown, once the boards are silent),
  /// after every record handed in so far; returns how many, or nil when the history failed (logged).
  func closeInterrupted(at date: Date) async -> Int? {
    await withCheckedContinuation { continuation in
      queue.async { [history, logger] in
        do { continuation.resume(returning: try history.closeInterrupted(at: date)) } catch {
          logger.error("history: \(error)")
          continuation.resume(returning: nil)
        }
      }
    }
  }

  /// Returns once every record handed in so far is written (at shutdown).
  func drain() async {
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
  }
}
