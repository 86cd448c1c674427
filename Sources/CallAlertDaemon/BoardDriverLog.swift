import Logging

/// What a board driver logs, and how often: a board that stays away, a table's pattern fallback, FAULTs and
/// line noise each say something once and then hold back, so that a bad board does not flood the journal.
/// A pure value on the driver's clock in milliseconds; the driver writes the lines it returns.
struct BoardDriverLog {
  /// How long one summary of repeated lines covers.
  static var summaryIntervalMs: UInt64 { 10_000 }

  let board: String
  /// Repeated FAULTs and line noise: the first logged, then a summary per interval.
  private var throttle = LogThrottle(intervalMs: Self.summaryIntervalMs)
  /// The last pattern fallback logged: a board without a table falls back on every call.
  private var fallbacks = RepeatedMessageFilter()
  /// The last reason the board could not be opened.
  private var unavailable = RepeatedMessageFilter()

  init(board: String) { self.board = board }

  /// The board could not be opened: said once, and again when the reason changes; every retry at debug level.
  mutating func unavailable(_ reason: String, retryingIn delay: Duration) -> (Logger.Level, String) {
    (unavailable.isNew(reason) ? .notice : .debug, "board \(board) not available: \(reason); retrying in \(delay)")
  }

  /// The board is connected: its table may have changed, so its fallback is news again.
  mutating func connected() { fallbacks.reset() }

  /// A PLAY that plays something else: logged once, and again when it changes (every call on a board without
  /// a table would repeat it).
  mutating func fallback(_ line: String) -> Logger.Level { fallbacks.isNew(line) ? .notice : .debug }

  /// A FAULT's line, unless the throttle holds it back for the summary.
  mutating func fault(_ kind: String, detail: String, at nowMs: UInt64) -> String? {
    throttle.admit(kind, at: nowMs) ? "board \(board) \(kind), detail \(detail)" : nil
  }

  /// Line noise's line, unless the throttle holds it back for the summary.
  mutating func lineNoise(bytes: Int, at nowMs: UInt64) -> String? {
    guard throttle.admit("line noise", amount: bytes, at: nowMs) else { return nil }
    return
      "board \(board): \(bytes) bytes on the line decoded to no frame (a wrong baud rate, or not a CallAlert board on this port?)"
  }

  /// When the summaries of held-back lines are due, if any are.
  var nextSummaryMs: UInt64? { throttle.nextDeadlineMs }

  /// The summaries due at `nowMs`.
  mutating func summaries(at nowMs: UInt64) -> [String] {
    let seconds = Self.summaryIntervalMs / 1_000
    return throttle.due(at: nowMs).map { summary in
      summary.key == "line noise"
        ? "board \(board): \(summary.amount) more bytes of line noise in the last \(seconds) s"
        : "board \(board) \(summary.key) repeated \(summary.count) more times in the last \(seconds) s"
    }
  }
}
