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

/// A history that can say whether it holds a call: what the daemon asks before a provider's `ringing` rings,
/// so that a request replayed after the engine forgot the call (its tombstone window) does not ring twice.
public protocol CallHistoryLookup: Sendable {
  /// Whether a call with this id was recorded (ringing, ended, missed or suppressed), however long ago, as
  /// long as the retention kept it.
  func containsCall(id: String) throws(CallHistoryError) -> Bool
}

extension CallHistory: CallHistoryLookup {
  /// Whether a call with this id was recorded.
  public func containsCall(id: String) throws(CallHistoryError) -> Bool {
    try read { db in
      try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM calls WHERE id = ?)", arguments: [id]) ?? false
    }
  }
}
