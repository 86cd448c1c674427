import CallAlertText
import CallAlertValues

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

/// Whether the call history is being written, as `status` reports it (`"history":{...}`), and as the
/// daemon's `history` events say when it changes.
///
/// `state` is `ok` while every record reaches the disk, `degraded` while the disk refuses them (they wait
/// in memory, see the daemon's `HistoryWriter`). `pending` counts the writes waiting in memory; `lost` counts
/// those dropped since the daemon started (the memory queue was full, or the database refused one for good),
/// and stays until the daemon restarts: a history that lost records is never reported whole. `recreated`
/// says that the file was removed or replaced while the daemon ran, and made again.
public struct HistoryHealth: Codable, Equatable, Sendable {
  /// Creates a health report.
  public init(
    state: State, path: String?, pending: Int, lost: Int, error: String? = nil, movedAside: String? = nil,
    recreated: Recreation? = nil
  ) {
    self.state = state
    self.path = path
    self.pending = pending
    self.lost = lost
    self.error = error
    self.movedAside = movedAside
    self.recreated = recreated
  }

  /// The history's file was removed or replaced while the daemon ran, and the daemon made it again with every
  /// call it held: the last time, and how many times since the start.
  public struct Recreation: Codable, Equatable, Sendable {
    /// Creates the report of a recreation.
    public init(at: Date, reason: CallHistoryFileChange, calls: Int, keptAs: String? = nil, times: Int = 1) {
      self.at = at
      self.reason = reason
      self.calls = calls
      self.keptAs = keptAs
      self.times = times
    }

    /// When the daemon made the file again.
    public var at: Date
    /// What had become of it: `removed` or `replaced`.
    public var reason: CallHistoryFileChange
    /// How many calls the new file held then.
    public var calls: Int
    /// Where the file found in the history's place was moved, or nil.
    public var keptAs: String?
    /// How many times since the daemon started.
    public var times: Int

    enum CodingKeys: String, CodingKey { case at, reason, calls, keptAs = "kept_as", times }

    /// `made again at 21:22:00 after it was removed, with its 1234 calls`, and where a replacing file went.
    public func text(timeZone: TimeZone = .current) -> String {
      let kept = keptAs.map { "; the file found in its place is kept as \($0)" } ?? ""
      return
        "made again at \(Timestamp.clock(at, timeZone: timeZone)) after it was \(reason.rawValue), with its \(calls) calls\(kept)"
    }
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
  /// The last time the file was removed or replaced while the daemon ran and was made again, or nil.
  public var recreated: Recreation?

  enum CodingKeys: String, CodingKey {
    case state, path, pending, lost, error, movedAside = "moved_aside", recreated
  }

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
      let what = state == .ok ? "history ok: \(path ?? ":memory:")\(lost > 0 ? ", \(lost) lost" : "")" : summary
      let aside = movedAside.map { "; damaged file kept as \($0)" } ?? ""
      return "\(Timestamp.clock(date, timeZone: .current)) \(what)\(aside)\(recreated.map { "; \($0.text())" } ?? "")"
    }
  }
}
