import CallAlertDaemon
import CallAlertSimulation

extension DaemonOptions {
  /// The same options with in-process virtual boards handed in, as `callalert run --simulate` does.
  func withVirtualBoards() -> DaemonOptions {
    var options = self
    options.boardSource = .virtualBoards()
    return options
  }
}
