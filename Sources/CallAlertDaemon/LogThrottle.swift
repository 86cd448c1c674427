/// Keeps a flood of one kind of log line down to its first occurrence, then one summary per interval.
///
/// A board in trouble can send the same FAULT thousands of times a minute (one flood gave 6 667 identical
/// warnings), and a line carrying noise reports it kilobyte after kilobyte. The first of a kind is logged in
/// full; the next ones within ``intervalMs`` are only counted, and when the interval ends a summary says how
/// many there were. A kind that stays quiet for a whole interval is forgotten: its next occurrence is logged
/// in full again. Pure: the caller passes the time and asks for the summaries at ``nextDeadlineMs``.
struct LogThrottle: Sendable {
  /// A summary due: how many occurrences of `key` were held back, and the sum of their amounts.
  struct Summary: Equatable, Sendable {
    var key: String
    var count: Int
    var amount: Int
  }

  private struct Window: Sendable {
    var openedMs: UInt64
    var count = 0
    var amount = 0
  }

  /// How long one summary covers.
  let intervalMs: UInt64
  private var windows: [String: Window] = [:]

  /// Creates a throttle with one summary per `intervalMs` at most, per kind.
  init(intervalMs: UInt64) {
    self.intervalMs = max(1, intervalMs)
  }

  /// Notes one occurrence of `key` (carrying `amount`, such as a byte count); true when it is to be logged
  /// now, in full.
  mutating func admit(_ key: String, amount: Int = 1, at nowMs: UInt64) -> Bool {
    guard windows[key] != nil else {
      windows[key] = Window(openedMs: nowMs)
      return true
    }
    windows[key]!.count += 1
    windows[key]!.amount += amount
    return false
  }

  /// The summaries of every interval that has ended by `nowMs`, oldest key first. A kind with occurrences
  /// held back gets its summary and a new interval; a kind without any is forgotten.
  mutating func due(at nowMs: UInt64) -> [Summary] {
    var summaries: [Summary] = []
    for key in windows.keys.sorted() {
      guard let window = windows[key], window.openedMs + intervalMs <= nowMs else { continue }
      if window.count > 0 {
        summaries.append(Summary(key: key, count: window.count, amount: window.amount))
        windows[key] = Window(openedMs: nowMs)
      } else {
        windows[key] = nil
      }
    }
    return summaries
  }

  /// When ``due(at:)`` next has something to do; nil when nothing is being counted.
  var nextDeadlineMs: UInt64? {
    windows.values.map { $0.openedMs + intervalMs }.min()
  }
}
