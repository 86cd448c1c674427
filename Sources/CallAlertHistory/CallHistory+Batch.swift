import CallAlertEngine
import CallAlertValues
internal import GRDB

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

extension CallHistory {
  /// The rows one commit makes, folded in memory until the commit: a call that rings and ends within the same
  /// batch (a call and its hangup, both still queued) is one INSERT of its final row, not an INSERT, a look-up
  /// and an UPDATE. Rows that were on disk before the batch are changed in place, as each event comes. The
  /// rows are the ones the same events would leave written one at a time (`aBatchIsTheSameAsItsRecordsOneByOne`).
  struct Batch {
    /// A row this batch makes, with its columns.
    struct NewRow {
      var call: IncomingCall
      var receivedAt: Date
      var rangAt: Date?
      var endedAt: Date?
      var outcome: CallOutcome
      var reason: String?
      var boards: String
      var pattern: String?
      var missed: Bool
    }

    private var rows: [NewRow] = []
    /// The indices in `rows` of each call's new rows, oldest first (nearly always one).
    private var byCall: [String: [Int]] = [:]

    /// The newest row this batch made for `id` whose outcome is one of `outcomes`: it is newer than any row on
    /// disk, so it is the one a look-up on disk would find first.
    private func newRow(_ id: String, outcomes: Set<CallOutcome>) -> Int? {
      byCall[id]?.last { outcomes.contains(rows[$0].outcome) }
    }

    private mutating func add(_ row: NewRow) {
      byCall[row.call.id, default: []].append(rows.count)
      rows.append(row)
    }

    /// Applies `event`, at `date`, to the rows of this batch or to the rows on disk.
    mutating func apply(_ event: EngineEvent, at date: Date, _ db: Database) throws {
      switch event {
      case .ringing(let call, let boards, let pattern, _, _):
        let boardsText = CallHistory.encode(boards)
        if let index = newRow(call.id, outcomes: [.ringing]) {
          rows[index].boards = boardsText
          rows[index].pattern = CallHistory.describe(pattern)
          rows[index].reason = nil
          rows[index].rangAt = rows[index].rangAt ?? date
        } else if try !CallHistory.updateLatestRow(  // rings again after its boards came back: the row it had
          db, id: call.id, outcomes: [.ringing],
          set: "boards = ?, pattern = ?, reason = NULL, rang_at = COALESCE(rang_at, ?)",
          arguments: [boardsText, CallHistory.describe(pattern), CallHistory.text(date)])
        {
          add(
            NewRow(
              call: call, receivedAt: date, rangAt: date, outcome: .ringing, boards: boardsText,
              pattern: CallHistory.describe(pattern), missed: false))
        }
      case .suppressed(let call, let reason):
        add(
          NewRow(
            call: call, receivedAt: date, endedAt: date, outcome: .suppressed, reason: reason.rawValue, boards: "[]",
            missed: false))
      case .stopped(let callID, let reason):
        try stop(callID, reason: reason, at: date, db)
      case .missed(let call, let reason):
        if let index = newRow(call.id, outcomes: [.ringing, .missed, .suppressed]) {
          rows[index].missed = true
          rows[index].endedAt = rows[index].endedAt ?? date
          if rows[index].outcome == .ringing {
            rows[index].reason = reason.rawValue
            rows[index].outcome = .missed
          }
        } else if try !CallHistory.updateLatestRow(  // marked on the row it had
          db, id: call.id, outcomes: [.ringing, .missed, .suppressed],
          set: """
            missed = 1, ended_at = COALESCE(ended_at, ?),
              reason = CASE WHEN outcome = 'ringing' THEN ? ELSE reason END,
              outcome = CASE WHEN outcome = 'ringing' THEN 'missed' ELSE outcome END
            """,
          arguments: [CallHistory.text(date), reason.rawValue])
        {
          let outcome: CallOutcome = [.cap, .unanswered, .displaced].contains(reason) ? .missed : .suppressed
          add(
            NewRow(
              call: call, receivedAt: date, endedAt: date, outcome: outcome, reason: reason.rawValue, boards: "[]",
              missed: true))
        }
      case .missedAcknowledged:
        // Every unacknowledged missed call, the new ones too: they are written first.
        try finish(db)
        try CallHistory.execute(
          db,
          sql: "UPDATE calls SET acknowledged = 1, acknowledged_at = ? WHERE missed = 1 AND acknowledged = 0",
          arguments: [CallHistory.text(date)])
      case .missedCallAcknowledged(let id):
        try finish(db)
        try CallHistory.execute(
          db,
          sql:
            "UPDATE calls SET acknowledged = 1, acknowledged_at = ? WHERE id = ? AND missed = 1 AND acknowledged = 0",
          arguments: [CallHistory.text(date), id])
      case .ignored, .doNotDisturbEnded:
        break
      case .callsRefused(let source, let count, let first, let since):
        // One row per source and minute, never a call's own id: a call refused now may ring when sent again,
        // and a look-up by its id (a webhook's replay check) must not find it.
        var call = first
        call.id = "refused:\(source.rawValue):\(first.id)"
        let calls = count == 1 ? "1 call" : "\(count) calls"
        add(
          NewRow(
            call: call, receivedAt: since, endedAt: date, outcome: .refused,
            reason: "\(IgnoredReason.tooManyCalls.rawValue): \(calls) from \(source.rawValue)", boards: "[]",
            missed: false))
      case .patternFallback(let callID, let board, let requested, let played, _):
        // The row names what really played: the fallback, and the pattern it stood in for.
        // Several boards may fall back: each adds its note.
        let note = "\(played) (fallback for \(CallHistory.describe(requested)) on \(board))"
        if let index = newRow(callID, outcomes: [.ringing]) {
          // As the statement below: SQLite's LIKE ignores the case of ASCII letters.
          if let pattern = rows[index].pattern, pattern.lowercased().contains(" (fallback for ") {
            rows[index].pattern = pattern + "; " + note
          } else {
            rows[index].pattern = note
          }
        } else {
          _ = try CallHistory.updateLatestRow(
            db, id: callID, outcomes: [.ringing],
            set: "pattern = CASE WHEN pattern LIKE '% (fallback for %' THEN pattern || '; ' || ? ELSE ? END",
            arguments: [note, note])
        }
      }
    }

    private mutating func stop(_ callID: String, reason: StopReason, at date: Date, _ db: Database) throws {
      let outcome: CallOutcome?
      switch reason {
      case .boardLost: outcome = nil  // it keeps ringing, waiting for its board
      case .hangup: outcome = .hungUp
      case .answered: outcome = .answered
      case .acknowledged: outcome = .acknowledged
      case .cap, .unanswered, .displaced: outcome = .missed
      }
      if let index = newRow(callID, outcomes: [.ringing]) {
        rows[index].reason = reason.rawValue
        guard let outcome else { return }
        rows[index].outcome = outcome
        rows[index].endedAt = date
        rows[index].missed = rows[index].missed || outcome == .missed
        return
      }
      guard let outcome else {
        _ = try CallHistory.updateLatestRow(
          db, id: callID, outcomes: [.ringing], set: "reason = ?", arguments: [reason.rawValue])
        return
      }
      _ = try CallHistory.updateLatestRow(
        db, id: callID, outcomes: [.ringing], set: "outcome = ?, reason = ?, ended_at = ?, missed = missed OR ?",
        arguments: [outcome.rawValue, reason.rawValue, CallHistory.text(date), outcome == .missed])
    }

    /// Writes the rows this batch made, in the order their calls were first heard of.
    mutating func finish(_ db: Database) throws {
      for row in rows {
        try CallHistory.execute(
          db,
          sql: """
            INSERT INTO calls (id, received_at, caller, name, level, pattern_hint, sent_at, rang_at, ended_at, outcome,
              reason, boards, pattern, missed)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id, received_at) DO UPDATE SET outcome = excluded.outcome, reason = excluded.reason,
              rang_at = excluded.rang_at, ended_at = excluded.ended_at, boards = excluded.boards,
              pattern = excluded.pattern, missed = excluded.missed
            """,
          arguments: [
            row.call.id, CallHistory.text(row.receivedAt), row.call.callerNumber, row.call.callerName,
            row.call.level.rawValue, row.call.patternHint, CallHistory.text(row.call.sentAt),
            CallHistory.text(row.rangAt), CallHistory.text(row.endedAt), row.outcome.rawValue, row.reason,
            row.boards, row.pattern, row.missed,
          ])
      }
      rows.removeAll(keepingCapacity: true)
      byCall.removeAll(keepingCapacity: true)
    }
  }
}
