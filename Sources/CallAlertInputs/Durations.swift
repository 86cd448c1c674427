import CallAlertText

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads durations as the config file writes them: `30s`, `2500ms`, `3m`, `1.5s`, `1h`, or a bare number
/// of seconds; a space before the unit is allowed.
enum Durations {
  /// The duration in milliseconds, or nil when the text is not one (or not a whole number of ms).
  static func milliseconds(_ text: String) -> UInt64? {
    let trimmed = text.trimmingWhitespace()
    let numberEnd = trimmed.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? trimmed.endIndex
    let number = trimmed[..<numberEnd]
    let unit = trimmed[numberEnd...].trimmingWhitespace().lowercased()
    guard !number.isEmpty, !number.hasPrefix("."), !number.hasSuffix("."), let value = Double(number) else {
      return nil
    }
    let scale: Double
    switch unit {
    case "ms": scale = 1
    case "", "s", "sec": scale = 1_000
    case "m", "min": scale = 60_000
    case "h": scale = 3_600_000
    default: return nil
    }
    let ms = value * scale
    guard ms.isFinite, ms < 1e15, ms == ms.rounded() else { return nil }
    return UInt64(ms)
  }
}
