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
  /// What ``recreate(at:)`` did.
  public struct Recreation: Sendable {
    /// Why the file was made again.
    public var change: CallHistoryFileChange
    /// The new history at the path; nil when it could not be opened (then ``problem`` says why, and opening the
    /// path later finds the copy there).
    public var history: CallHistory?
    /// Why the new history could not be opened, or nil.
    public var problem: CallHistoryError?
    /// How many calls the new file holds: every call the old one held.
    public var calls: Int
    /// Where the file that had taken the history's place was moved, or nil.
    public var keptAs: String?
    /// Files whose permissions were tightened: one line each.
    public var notes: [String]
  }

  /// What became of the file this history opened: nil while its path still names it (and for a history in
  /// memory or read-only), ``CallHistoryFileChange/removed`` when nothing is at the path (or it cannot be
  /// looked at), ``CallHistoryFileChange/replaced`` when another file is. A `stat(2)`, a few microseconds.
  public func fileChange() -> CallHistoryFileChange? {
    guard let path, let identity else { return nil }
    guard let now = CallHistoryFiles.identity(of: path) else { return .removed }
    return now == identity ? nil : .replaced
  }

  /// Puts the history back at its path after its file was removed or replaced while it was open, with
  /// everything it holds: the file stays readable through the open connection (on Linux and macOS an unlinked
  /// file lives on while it is open), so SQLite copies it whole (`VACUUM INTO`, every call, the unacknowledged
  /// missed ones too) into a new private file beside the path, which then takes the path. A file that had
  /// taken the history's place is moved aside (`<path>.replaced-<UTC time>`), never deleted.
  ///
  /// When it throws, nothing changed: this history is still open and takes writes (to the removed file), and
  /// the caller may try again. Once it returns, this history is closed (its connections released, so that its
  /// log and shared-memory files cannot be mistaken for the new file's) and ``Recreation/history`` is the one
  /// to use.
  public func recreate(at date: Date) throws(CallHistoryError) -> Recreation {
    guard let path, let change = fileChange() else {
      throw CallHistoryError(path: displayPath, message: "the history's file is in place", kind: .rejected)
    }
    try CallHistoryFiles.makeFolders(forFile: path)
    let copy = path + ".recreating"
    unlink(copy)  // left by an earlier try that failed
    try CallHistoryFiles.createEmpty(copy)
    do {
      // Outside a transaction, through the writer's connection: it sees every commit, its log included.
      try database.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [copy]) }
      try CallHistoryFiles.sync(copy)
    } catch {
      unlink(copy)
      throw CallHistoryError(error, path: path)
    }
    var keptAs: String?
    if change == .replaced, CallHistoryFiles.identity(of: path) != nil {
      do throws(CallHistoryError) {
        keptAs = try CallHistoryFiles.moveReplacementAside(path: path, at: date)
      } catch {
        unlink(copy)
        throw error
      }
    }
    do {
      try database.close()
    } catch {
      unlink(copy)
      throw CallHistoryError(error, path: path)
    }
    // Closed: its `-wal` and `-shm` are gone, or stale; the new file must not take them for its own.
    for suffix in CallHistoryFiles.companionSuffixes { unlink(path + suffix) }
    var recreation = Recreation(change: change, history: nil, problem: nil, calls: 0, keptAs: keptAs, notes: [])
    guard rename(copy, path) == 0 else {
      recreation.problem = CallHistoryFiles.failure(path, "cannot put the copy (\(copy)) in its place", errno)
      return recreation
    }
    CallHistoryFiles.syncFolder(of: path)
    do throws(CallHistoryError) {
      let opening = try CallHistory.open(path: path, at: date)
      recreation.history = opening.history
      recreation.notes = opening.notes
      recreation.calls =
        (try? opening.history.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM calls") ?? 0 }) ?? 0
    } catch {
      recreation.problem = error
    }
    return recreation
  }
}
