import CallAlertControl
import CallAlertDaemon
import CallAlertValues

/// `callalert history` asks the running daemon first: it knows the records still waiting in memory for a
/// disk that refuses them, which the file cannot show.
enum HistoryFromDaemon {
  /// The daemon's answer: the calls it could read and, when the history is not whole, what is missing.
  struct Answer {
    var calls: [CallRecord]
    /// The daemon's `error` (records pending or lost, a degraded history); nil when whole.
    var warning: String?
  }

  /// Asks the daemon at `socketPath`; nil when no daemon listens there (then the file is the whole truth).
  static func ask(socketPath: String, missedOnly: Bool, limit: Int) async throws -> Answer? {
    let answer: Result<(calls: [CallRecord], problem: HistoryProblem?), ControlClientError>
    do throws(ControlClientError) {
      answer = .success(
        try await ControlClient.socket(path: socketPath).history(missedOnly: missedOnly, limit: limit))
    } catch {
      answer = .failure(error)
    }
    switch answer {
    case .success(let history): return Answer(calls: history.calls, warning: history.problem.map(\.error))
    case .failure(.noDaemon): return nil
    case .failure(let error): throw CommandFailure(error.description)
    }
  }
}
