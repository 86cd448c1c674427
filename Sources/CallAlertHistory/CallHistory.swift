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

/// The call history: every call the engine reported, how it ended, and which missed calls still wait for
/// acknowledgement. An SQLite database (GRDB), safe to use from any thread.
///
/// The daemon records each ``CallAlertEngine/EngineEvent`` with ``record(_:at:)``; at start it calls
/// ``closeInterrupted(at:)`` and then ``unacknowledgedMissed()`` to light the missed-call indicator again,
/// and at a graceful stop ``closeInterrupted(at:)`` again, with the time the boards went quiet. Every
/// failure is a ``CallHistoryError`` whose kind says whether the disk may cure it.
public final class CallHistory: Sendable {
  /// The database's path; nil in memory.
  public let path: String?
  let database: any DatabaseWriter
  /// The file opened at `path` (its device and inode), to tell when the path names another file or none.
  let identity: CallHistoryFiles.Identity?

  /// Opens (or creates) the history at `path`, and brings its schema up to date. The folders are made
  /// `0700` and the files kept `0600` (see ``CallHistoryFiles/prepare(path:)``).
  ///
  /// The database uses write-ahead logging, so `callalert history` can read it while the daemon writes, and
  /// waits up to 5 s for a lock held by another process.
  public convenience init(path: String) throws(CallHistoryError) {
    _ = try CallHistoryFiles.prepare(path: path)
    try self.init(openingAt: path)
  }

  /// What ``open(path:at:)`` did besides opening: lines for the log.
  public struct Opening: Sendable {
    /// The history, ready.
    public var history: CallHistory
    /// Files whose permissions were tightened, a damaged file moved aside: one line each.
    public var notes: [String]
    /// Where a damaged database was moved, if one was.
    public var movedAside: String?
  }

  /// Opens the history at `path` as the daemon does: like ``init(path:)``, and a file that is not a database
  /// or is damaged (SQLite's quick check fails) is moved aside, kept under a name with the time (see
  /// ``CallHistoryFiles/moveAside(path:at:)``), and a new history is started in its place.
  public static func open(path: String, at date: Date) throws(CallHistoryError) -> Opening {
    var notes = try CallHistoryFiles.prepare(path: path)
    do throws(CallHistoryError) {
      let history = try CallHistory(openingAt: path)
      try history.checkIntact()
      return Opening(history: history, notes: notes, movedAside: nil)
    } catch  where error.kind == .corrupt {
      let aside = try CallHistoryFiles.moveAside(path: path, at: date)
      notes.append("moved the damaged history aside to \(aside) (\(error.message)); a new one is started")
      notes += try CallHistoryFiles.prepare(path: path)
      let history = try CallHistory(openingAt: path)
      return Opening(history: history, notes: notes, movedAside: aside)
    }
  }

  /// Opens the history at `path` to read it, as `callalert history --database` does: nothing is created,
  /// changed or chmodded (a text file named by mistake was made 0600 before it was refused), and a database
  /// that is not a history of this version is refused.
  public static func reading(path: String) throws(CallHistoryError) -> CallHistory {
    guard FileManager.default.fileExists(atPath: path) else {
      throw CallHistoryError(path: path, message: "no such file", kind: .unavailable)
    }
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(5)
    configuration.label = "CallHistory (read)"
    let history: CallHistory
    let complete: Bool
    do {
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      complete = try queue.read { db in try CallHistory.migrator.hasCompletedMigrations(db) }
      history = CallHistory(reading: queue, path: path)
    } catch {
      throw CallHistoryError(error, path: path)
    }
    guard complete else {
      throw CallHistoryError(
        path: path, message: "not a call history of this version (the daemon brings an older one up to date)",
        kind: .rejected)
    }
    return history
  }

  private init(reading database: DatabaseQueue, path: String) {
    self.database = database
    self.path = path
    self.identity = nil
  }

  private convenience init(openingAt path: String) throws(CallHistoryError) {
    var configuration = Configuration()
    configuration.busyMode = .timeout(5)
    configuration.label = "CallHistory"
    // Deleted calls (retention) are overwritten with zeros, not left readable in free pages.
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
    do {
      let pool = try DatabasePool(path: path, configuration: configuration)
      try self.init(database: pool, path: path, identity: CallHistoryFiles.identity(of: path))
    } catch {
      throw CallHistoryError(error, path: path)
    }
  }

  /// A history in memory, gone when released: for tests and for running without a history file.
  public static func inMemory() throws(CallHistoryError) -> CallHistory {
    do {
      return try CallHistory(database: DatabaseQueue(), path: nil)
    } catch {
      throw CallHistoryError(error, path: ":memory:")
    }
  }

  private init(database: any DatabaseWriter, path: String?, identity: CallHistoryFiles.Identity? = nil) throws {
    self.database = database
    self.path = path
    self.identity = identity
    try CallHistory.migrator.migrate(database)
  }

  /// SQLite's quick check: a damaged page reads as ``CallHistoryError/Kind/corrupt``.
  private func checkIntact() throws(CallHistoryError) {
    let verdict = try read { db in try String.fetchOne(db, sql: "PRAGMA quick_check(1)") }
    guard verdict == "ok" else {
      throw CallHistoryError(path: displayPath, message: "damaged: \(verdict ?? "no answer")", kind: .corrupt)
    }
  }

  /// The path for errors.
  var displayPath: String { path ?? ":memory:" }

  func write<T>(_ body: (Database) throws -> T) throws(CallHistoryError) -> T {
    do { return try database.write(body) } catch { throw CallHistoryError(error, path: displayPath) }
  }

  func read<T>(_ body: (Database) throws -> T) throws(CallHistoryError) -> T {
    do { return try database.read(body) } catch { throw CallHistoryError(error, path: displayPath) }
  }

  // MARK: - Recording

  /// Records an engine event that happened at `date`.
  ///
  /// - `ringing`: a new row, outcome `ringing`; for a call that rings again after its boards came back, the
  ///   same row with the new boards.
  /// - `stopped`: the ringing row ends: hangup -> `hung-up`, answered -> `answered`, acknowledged ->
  ///   `acknowledged`, cap, unanswered and displaced -> `missed` (and counts as missed, the reason saying
  ///   which); board-lost keeps it ringing.
  /// - `suppressed`: a new row, outcome `suppressed`, with the reason.
  /// - `missed`: the call's row is marked missed (a ringing one becomes `missed`); a row is made if there is none.
  /// - `missedAcknowledged`: every unacknowledged missed call is marked acknowledged.
  /// - `missedCallAcknowledged`: the unacknowledged missed rows of that call id are marked acknowledged.
  /// - `ignored`, `doNotDisturbEnded`: nothing.
  /// - `callsRefused`: a row of outcome `refused`, id `refused:<source>:<first call's id>`, received when the
  ///   first was refused, ended at `date`, its reason `too-many-calls: 523 calls from mqtt`; never missed.
  /// - `patternFallback`: the ringing row's pattern becomes what played, e.g. `UK (fallback for office on desk)`;
  ///   a second board's fallback is added after `; `.
  public func record(_ event: EngineEvent, at date: Date) throws(CallHistoryError) {
    try record([HistoryRecord(event, at: date)])
  }

  /// Records events in order, in one transaction: all of them or, on an error, none. A burst of calls costs one
  /// commit (one wait for the disk) instead of one per event, and a call that rings and ends within the batch
  /// is written once, as its final row: one INSERT instead of an INSERT, a look-up and an UPDATE.
  public func record(_ records: [HistoryRecord]) throws(CallHistoryError) {
    try write { db in
      var batch = Batch()
      for record in records { try batch.apply(record.event, at: record.date, db) }
      try batch.finish(db)
    }
  }

  /// Marks calls still `ringing` (the daemon stopped while they rang) as missed with reason `interrupted`;
  /// returns how many. Call it at start, before ``unacknowledgedMissed()``.
  @discardableResult
  public func closeInterrupted(at date: Date) throws(CallHistoryError) -> Int {
    try write { db in
      try db.execute(sql: Self.closingInterrupted, arguments: [Self.text(date)])
      return db.changesCount
    }
  }

  /// The statement of ``closeInterrupted(at:)``: it finds the ringing calls through their own small index.
  static let closingInterrupted = """
    UPDATE calls SET outcome = 'missed', reason = 'interrupted', missed = 1, ended_at = COALESCE(ended_at, ?)
    WHERE outcome = 'ringing'
    """

  /// Deletes calls received before `date`, except unacknowledged missed calls and calls still ringing;
  /// returns how many.
  @discardableResult
  public func prune(receivedBefore date: Date) throws(CallHistoryError) -> Int {
    try write { db in
      try db.execute(
        sql: """
          DELETE FROM calls WHERE received_at < ? AND outcome != 'ringing' AND NOT (missed = 1 AND acknowledged = 0)
          """,
        arguments: [Self.text(date)])
      return db.changesCount
    }
  }

  // MARK: - Reading

  /// The most recent calls, newest first; only missed ones when `missedOnly`.
  public func calls(missedOnly: Bool = false, limit: Int = 20) throws(CallHistoryError) -> [CallRecord] {
    guard limit > 0 else { return [] }
    return try read { db in
      try Row.fetchAll(db, sql: Self.listing(missedOnly: missedOnly), arguments: [limit]).map { row in
        try Self.record(row, path: path)
      }
    }
  }

  /// The statement of ``calls(missedOnly:limit:)``: it walks an index newest first and stops at the limit,
  /// whatever the history's size (`theListingsWalkAnIndex`).
  static func listing(missedOnly: Bool) -> String {
    "SELECT * FROM calls \(missedOnly ? "WHERE missed = 1" : "") ORDER BY received_at DESC, rowid DESC LIMIT ?"
  }

  /// SQLite's plan for `sql` (EXPLAIN QUERY PLAN), one line per step, its parameters NULL: for tests that guard
  /// a statement's index.
  func queryPlan(_ sql: String) throws(CallHistoryError) -> [String] {
    let nulls = [(any DatabaseValueConvertible)?](repeating: nil, count: sql.filter { $0 == "?" }.count)
    return try read { db in
      try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(nulls)).map { $0["detail"] }
    }
  }

  /// Missed calls not yet acknowledged, oldest first, for the engine to restore at start.
  public func unacknowledgedMissed() throws(CallHistoryError) -> [IncomingCall] {
    try read { db in
      try Row.fetchAll(
        db, sql: "SELECT * FROM calls WHERE missed = 1 AND acknowledged = 0 ORDER BY received_at, rowid"
      ).map { row in try Self.record(row, path: path).call }
    }
  }

  // MARK: - Rows

  /// Runs one of the history's own statements, prepared once per connection and kept (GRDB's statement cache):
  /// a record's write no longer parses and authorizes its SQL each time, which was half its cost.
  /// A time as the history stores it (`2026-11-21 22:00:01.250`, UTC), written by ``Timestamp/sqlite(_:)``
  /// rather than by GRDB's `Date` conversion, which formats with a `DateFormatter` on every row.
  static func text(_ date: Date) -> String { Timestamp.sqlite(date) }

  /// ``text(_:)``, or NULL.
  static func text(_ date: Date?) -> String? { date.map(Timestamp.sqlite) }

  static func execute(_ db: Database, sql: String, arguments: StatementArguments) throws {
    try db.cachedStatement(sql: sql).execute(arguments: arguments)
  }

  /// Changes the newest row of call `id` whose outcome is one of `outcomes` (`assignments` is the statement's
  /// SET clause, `arguments` its values); false when there is no such row. One statement, the row found by the
  /// same index a separate look-up would use: a hangup costs one statement, not a SELECT and an UPDATE.
  static func updateLatestRow(
    _ db: Database, id: String, outcomes: [CallOutcome], set assignments: String, arguments: StatementArguments
  ) throws -> Bool {
    var all = arguments
    all += [id]
    for outcome in outcomes { all += [outcome.rawValue] }
    try db.cachedStatement(sql: updatingLatestRow(set: assignments, outcomes: outcomes.count)).execute(arguments: all)
    return db.changesCount > 0
  }

  /// The statement of ``updateLatestRow(_:id:outcomes:set:arguments:)``.
  static func updatingLatestRow(set assignments: String, outcomes: Int) -> String {
    let marks = Array(repeating: "?", count: outcomes).joined(separator: ", ")
    return """
      UPDATE calls SET \(assignments) WHERE rowid = (SELECT rowid FROM calls WHERE id = ? AND outcome IN (\(marks))
        ORDER BY received_at DESC, rowid DESC LIMIT 1)
      """
  }

  private static func record(_ row: Row, path: String?) throws -> CallRecord {
    let id: String = row["id"]
    let levelText: String = row["level"]
    let outcomeText: String = row["outcome"]
    guard let level = InterruptionLevel(rawValue: levelText), let outcome = CallOutcome(rawValue: outcomeText) else {
      throw CallHistoryError(
        path: path ?? ":memory:",
        message: "call \(id) has level '\(levelText)' and outcome '\(outcomeText)', which this version does not know",
        kind: .rejected)
    }
    let boardsText: String = row["boards"]
    return CallRecord(
      id: id, callerNumber: row["caller"], callerName: row["name"], level: level, patternHint: row["pattern_hint"],
      receivedAt: row["received_at"], sentAt: row["sent_at"], rangAt: row["rang_at"], endedAt: row["ended_at"],
      outcome: outcome, reason: row["reason"], boards: decode(boardsText), pattern: row["pattern"],
      missed: row["missed"], acknowledged: row["acknowledged"], acknowledgedAt: row["acknowledged_at"])
  }

  static func encode(_ boards: [String]) -> String {
    (try? String(decoding: JSONEncoder().encode(boards), as: UTF8.self)) ?? "[]"
  }

  private static func decode(_ text: String) -> [String] {
    (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
  }

  static func describe(_ pattern: PatternReference) -> String {
    switch pattern {
    case .slot(let slot): "slot \(slot)"
    case .named(let name): name
    case .inline: "inline"
    }
  }
}
