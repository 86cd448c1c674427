import CallAlertEngine
import Foundation

/// A moment `seconds` after a fixed start, at whole milliseconds (the precision the database keeps).
func at(_ seconds: Double) -> Date {
  Date(timeIntervalSince1970: 1_795_298_400 + seconds)
}

/// A ringing event for a call.
func ringing(
  _ call: IncomingCall, boards: [String] = ["desk"], pattern: PatternReference = .named("office")
) -> EngineEvent {
  .ringing(call, boards: boards, pattern: pattern, capMs: 30_000, silent: false)
}

/// A file path in a fresh temporary folder, removed by `cleanup`.
func temporaryDatabasePath(_ name: String = "history.sqlite") -> (path: String, cleanup: () -> Void) {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-history-\(UUID().uuidString)")
  let path = folder.appendingPathComponent("nested/state/\(name)").path
  return (path, { try? FileManager.default.removeItem(at: folder) })
}
