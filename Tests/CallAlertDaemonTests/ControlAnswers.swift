import CallAlertControl

/// Answer lines read as the typed responses they are, so tests check values, not the text's prefix.
enum Answer {
  /// The typed answer of a line; nil when it is none.
  static func of(_ line: String) -> ControlResponse? { try? ControlResponse(line: line) }

  /// What a request did, when the line is an outcome.
  static func outcome(_ line: String) -> RequestOutcome? {
    if case .outcome(let outcome)? = of(line) { outcome } else { nil }
  }

  /// Why a history answer is not whole, when it is not.
  static func historyError(_ response: ControlResponse?) -> String? {
    if case .history(_, let problem?)? = response { problem.error } else { nil }
  }

  /// The ids of the calls of a history answer.
  static func historyCallIDs(_ response: ControlResponse?) -> [String]? {
    if case .history(let calls, _)? = response { calls.map(\.id) } else { nil }
  }
}
