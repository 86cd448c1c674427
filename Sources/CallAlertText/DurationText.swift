/// Durations in words as Foundation's `Duration.UnitsFormatStyle` wrote them for the logs, without
/// FoundationInternationalization.
package enum DurationText {
  /// `4s`, `1s 500ms`, `250ms`, `3,600s`: what `duration.formatted(.units(allowed: [.seconds,
  /// .milliseconds], width: .narrow))` gave in the C and English locales for a duration of zero or more
  /// (whole seconds grouped by thousands, a zero part left out, `0ms` for no time, the rest rounded to the
  /// nearest millisecond, a tie to the even one). A negative duration reads as `0ms`: a retry is never due
  /// in the past.
  package static func secondsAndMilliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, attoseconds >= 0 else { return "0ms" }
    let perMillisecond: Int64 = 1_000_000_000_000_000
    var milliseconds = seconds * 1_000 + attoseconds / perMillisecond
    let rest = attoseconds % perMillisecond
    if rest > perMillisecond / 2 || (rest == perMillisecond / 2 && milliseconds % 2 == 1) { milliseconds += 1 }
    let parts = [
      milliseconds >= 1_000 ? grouped(milliseconds / 1_000) + "s" : nil,
      milliseconds % 1_000 != 0 ? "\(milliseconds % 1_000)ms" : nil,
    ].compactMap { $0 }
    return parts.isEmpty ? "0ms" : parts.joined(separator: " ")
  }

  private static func grouped(_ value: Int64) -> String {
    var digits = String(value)
    var index = digits.endIndex
    while digits.distance(from: digits.startIndex, to: index) > 3 {
      index = digits.index(index, offsetBy: -3)
      digits.insert(",", at: index)
    }
    return digits
  }
}
