import CallAlertControl
import CallAlertHistory
import CallAlertValues

/// A `history` answer: the calls the disk gave, and the history's health.
struct HistoryAnswer: Sendable {
  /// The calls read, newest first; empty when the history could not be read.
  var calls: [CallRecord]
  /// The history's health when it was read.
  var health: HistoryHealth
  /// Why the calls could not be read, if they could not.
  var readError: CallHistoryError?

  /// The control answer. Whole: the calls. Otherwise never ok, but with what could be read and what is
  /// missing (``HistoryProblem``).
  var response: ControlResponse {
    guard !health.isWhole || readError != nil else { return .history(calls: calls, problem: nil) }
    var error = health.summary
    if let readError { error += "; cannot read it: \(readError)" }
    return .history(calls: calls, problem: HistoryProblem(error: error, health: health))
  }

  /// The answer's line, as the socket sends it.
  var controlLine: String { response.line }
}
