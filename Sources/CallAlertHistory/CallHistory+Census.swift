import CallAlertValues
internal import GRDB

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How many calls a history holds, by outcome, and its oldest: what a long run checks (every call recorded
/// with its outcome, none left ringing, nothing older than the retention) without reading every row.
public struct CallHistoryCensus: Equatable, Sendable {
  /// Calls by outcome; an outcome without calls is absent.
  public var byOutcome: [CallOutcome: Int] = [:]
  /// Calls that count as missed.
  public var missed = 0
  /// Missed calls not yet acknowledged.
  public var unacknowledgedMissed = 0
  /// When the oldest call was received; nil when there is none.
  public var oldest: Date?
  /// When the newest call was received; nil when there is none.
  public var newest: Date?

  /// Every call counted.
  public var total: Int { byOutcome.values.reduce(0, +) }

  /// An empty census.
  public init() {}
}

extension CallHistory {
  /// Counts the calls whose id starts with `idPrefix` (every call when it is empty): one pass over the table,
  /// no row decoded.
  public func census(idPrefix: String = "") throws(CallHistoryError) -> CallHistoryCensus {
    let filter = idPrefix.isEmpty ? "" : "WHERE substr(id, 1, length(:prefix)) = :prefix"
    let arguments: StatementArguments = idPrefix.isEmpty ? [] : ["prefix": idPrefix]
    return try read { db in
      var census = CallHistoryCensus()
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT outcome, COUNT(*) AS calls, SUM(missed) AS missed, SUM(missed = 1 AND acknowledged = 0) AS waiting,
            MIN(received_at) AS oldest, MAX(received_at) AS newest
          FROM calls \(filter) GROUP BY outcome
          """,
        arguments: arguments)
      for row in rows {
        let outcomeText: String = row["outcome"]
        guard let outcome = CallOutcome(rawValue: outcomeText) else {
          throw CallHistoryError(
            path: displayPath, message: "outcome '\(outcomeText)', which this version does not know", kind: .rejected)
        }
        census.byOutcome[outcome] = row["calls"]
        census.missed += row["missed"] ?? 0
        census.unacknowledgedMissed += row["waiting"] ?? 0
        let oldest: Date? = row["oldest"]
        let newest: Date? = row["newest"]
        census.oldest = [census.oldest, oldest].compactMap { $0 }.min()
        census.newest = [census.newest, newest].compactMap { $0 }.max()
      }
      return census
    }
  }
}
