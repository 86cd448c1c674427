import CallAlertHistory
import CallAlertInputs
import Foundation

/// Whether the call history is being written, as `status` reports it (`"history":{...}`), and as the
/// daemon's `history` events say when it changes.
///
/// `state` is `ok` while every record reaches the disk, `degraded` while the disk refuses them (they wait
/// in memory, see ``HistoryWriter``). `pending` counts the writes waiting in memory; `lost` counts those
/// dropped since the daemon started (the memory queue was full, or the database refused one for good), and
/// stays until the daemon restarts: a history that lost records is never reported whole.
public struct HistoryHealth: Codable, Equatable, Sendable {
  /// Creates a health report.
  public init(
    state: State, path: String?, pending: Int, lost: Int, error: String? = nil, movedAside: String? = nil
  ) {
    self.state = state
    self.path = path
    self.pending = pending
    self.lost = lost
    self.error = error
    self.movedAside = movedAside
  }

  /// Written, or not.
  public enum State: String, Codable, Sendable {
    /// Every record reaches the disk.
    case ok
    /// The disk refuses them; they wait in memory and are retried.
    case degraded
  }

  /// Written, or not.
  public var state: State
  /// The history's path; nil for a history in memory.
  public var path: String?
  /// Writes waiting in memory for the disk.
  public var pending: Int
  /// Writes dropped since the daemon started.
  public var lost: Int
  /// Why the history is degraded (the last failure), or nil.
  public var error: String?
  /// Where a damaged history was moved aside since the daemon started, or nil.
  public var movedAside: String?

  enum CodingKeys: String, CodingKey { case state, path, pending, lost, error, movedAside = "moved_aside" }

  /// Whether a `history` answer from this history is whole: written, nothing pending, nothing lost.
  public var isWhole: Bool { state == .ok && pending == 0 && lost == 0 }

  /// What is missing, for the `error` of a `history` answer and for logs: `history degraded (<why>):
  /// 3 write(s) pending in memory, 0 lost`.
  public var summary: String {
    let counts = "\(pending) write(s) pending in memory, \(lost) lost"
    switch state {
    case .ok: return "history incomplete: \(counts)"
    case .degraded: return "history degraded (\(error ?? "unknown")): \(counts)"
    }
  }

  /// The `history` event line: JSON `{"event":"history","at":"…","history":{…}}`, or text
  /// `22:00:01 history degraded (…): 1 write(s) pending in memory, 0 lost`.
  public func eventLine(format: EventsFormat, at date: Date) -> String {
    switch format {
    case .json:
      let stamp = JSONText.quoted(Timestamp.iso8601(date))
      return #"{"event":"history","at":\#(stamp),"history":\#(ControlResponse.json(self) ?? "null")}"#
    case .text:
      let time = DateFormatter()
      time.dateFormat = "HH:mm:ss"
      let what = state == .ok ? "history ok: \(path ?? ":memory:")\(lost > 0 ? ", \(lost) lost" : "")" : summary
      return "\(time.string(from: date)) \(what)\(movedAside.map { "; damaged file kept as \($0)" } ?? "")"
    }
  }
}
