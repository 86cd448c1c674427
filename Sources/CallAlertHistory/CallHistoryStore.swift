import CallAlertEngine
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the daemon needs of a history: ``CallHistory`` on disk, or a stand-in in tests (a disk that fills
/// up, a file that cannot be opened). Every failure is a ``CallHistoryError`` whose ``CallHistoryError/kind``
/// says whether trying again may help.
public protocol CallHistoryStore: Sendable {
  /// Records an engine event that happened at `date` (see ``CallHistory/record(_:at:)``).
  func record(_ event: EngineEvent, at date: Date) throws(CallHistoryError)
  /// Records events in order, all of them or (on an error) none: one commit for a burst.
  func record(_ records: [HistoryRecord]) throws(CallHistoryError)
  /// Closes calls still ringing as missed, reason `interrupted`, ended at `date`; returns how many.
  func closeInterrupted(at date: Date) throws(CallHistoryError) -> Int
  /// Deletes calls received before `date` but unacknowledged missed calls; returns how many.
  func prune(receivedBefore date: Date) throws(CallHistoryError) -> Int
  /// The most recent calls, newest first.
  func calls(missedOnly: Bool, limit: Int) throws(CallHistoryError) -> [CallRecord]
  /// Missed calls not yet acknowledged, oldest first.
  func unacknowledgedMissed() throws(CallHistoryError) -> [IncomingCall]
  /// What became of the history's file since it was opened: nil while its path still names it (see
  /// ``CallHistory/fileChange()``). By default nil: a store without a file.
  func fileChange() -> CallHistoryFileChange?
  /// Puts the history back at its path with everything it holds, after its file was removed or replaced (see
  /// ``CallHistory/recreate(at:)``). By default refused: a store without a file.
  func recreate(at date: Date) throws(CallHistoryError) -> CallHistory.Recreation
}

extension CallHistoryStore {
  /// A store without a file: its file never changes.
  public func fileChange() -> CallHistoryFileChange? { nil }

  /// A store without a file cannot be made again.
  public func recreate(at date: Date) throws(CallHistoryError) -> CallHistory.Recreation {
    throw CallHistoryError(path: ":memory:", message: "a history without a file cannot be recreated", kind: .rejected)
  }
}

extension CallHistory: CallHistoryStore {}

/// An engine event and when it happened: one row's worth of the history to write.
public struct HistoryRecord: Sendable {
  /// The event.
  public var event: EngineEvent
  /// When it happened.
  public var date: Date

  /// A record of `event` at `date`.
  public init(_ event: EngineEvent, at date: Date) {
    self.event = event
    self.date = date
  }
}
