import CallAlertControl
import CallAlertHistory
import CallAlertValues
import Logging
import Synchronization

/// A history file removed or replaced while the daemon runs (`rm`, a cleaner, a restore gone wrong): noticed
/// within ``HistoryWriter/defaultFileCheckInterval`` (or before the next commit), and made again with everything
/// the history held.
extension HistoryWriter {
  /// What ``checkFile()`` found.
  enum FileCheck: Equatable {
    /// The path names the file the history has open (or the history has no file, or none is open).
    case inPlace
    /// The file was removed or replaced, and is made again: the history writes to the new one.
    case madeAgain
    /// The file was removed or replaced and cannot be made again yet: the history is degraded, the old file
    /// stays open (nothing it holds is lost while the daemon runs) and the retries try again.
    case failed
  }

  /// Compares the history's file with what its path names (a `stat`); when the file was removed or replaced,
  /// makes it again with every call the open history holds (``CallAlertHistory/CallHistory/recreate(at:)``),
  /// logs it, and publishes it in the health (`status` shows `recreated`). The caller holds the work lock.
  @discardableResult
  func checkFile() -> FileCheck {
    guard let store = state.withLock(\.store), let change = store.fileChange() else { return .inPlace }
    let date = now()
    let recreation: CallHistory.Recreation
    do throws(CallHistoryError) {
      recreation = try store.recreate(at: date)
    } catch {
      degrade(
        CallHistoryError(
          path: error.path,
          message: "the file was \(change.rawValue) while the daemon ran and cannot be made again (\(error.message)); "
            + "the daemon keeps it open, with every call, and tries again",
          kind: error.kind))
      return .failed
    }
    for note in recreation.notes { logger.warning("history: \(note)") }
    let report = state.withLock { state -> HistoryHealth.Recreation in
      let report = HistoryHealth.Recreation(
        at: date, reason: change, calls: recreation.calls, keptAs: recreation.keptAs,
        times: (state.recreated?.times ?? 0) + 1)
      state.recreated = report
      state.store = recreation.history
      return report
    }
    logger.warning(
      "history: \(path ?? "the history file") was \(change.rawValue) while the daemon ran; \(report.text())")
    guard recreation.history != nil else {
      // The copy is in place but does not open: the retries open it.
      degrade(recreation.problem ?? CallHistoryError(path: path ?? ":memory:", message: "cannot open the new file"))
      return .failed
    }
    onChange(health)
    return .madeAgain
  }

  /// Checks the file every `interval`, on the busy thread, until the writer stops: what waits is written to a
  /// file made again at once. One wake-up of that thread per check, and a `stat`.
  func checkFileLater(every interval: Duration) {
    busy.asyncAfter(interval) { [weak self] in
      guard let self, !self.state.withLock(\.stopped) else { return }
      self.exclusively {
        if self.checkFile() == .madeAgain { self.flush() }
      }
      self.checkFileLater(every: interval)
    }
  }
}
