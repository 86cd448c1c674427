import CallAlertText

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads and writes the timestamps of push payloads, control lines and event lines.
///
/// Numbers are Unix time in seconds or milliseconds, told apart by magnitude: below 10^11 they are
/// seconds (10^11 s is the year 5138), from there to 10^14 milliseconds (10^11 ms is 1973). Strings are
/// such a number or ISO 8601 with a zone: `2026-11-21T22:00:00Z`, `2026-11-21T23:00:00.250+01:00`.
/// The calendar arithmetic is done here, not with `DateFormatter`, so it reads the same on every platform.
package enum Timestamp {
  /// Seconds below this, milliseconds from here on.
  package static let millisecondThreshold = 1e11
  /// Nothing at or above this is a timestamp.
  package static let upperLimit = 1e14

  /// What a timestamp that cannot be read looks like, for messages.
  package static let expected = "Unix seconds, Unix milliseconds or ISO 8601 such as 2026-11-21T22:00:00Z"

  /// A date from a number's text; nil when it is not a number, or not positive, or too large.
  package static func date(number text: String) -> Date? {
    guard let value = Double(text), value.isFinite, value > 0, value < upperLimit else { return nil }
    return Date(timeIntervalSince1970: value < millisecondThreshold ? value : value / 1_000)
  }

  /// A date from a string: a number as in ``date(number:)``, or ISO 8601 with a zone.
  package static func date(text: String) -> Date? {
    let trimmed = text.trimmingWhitespace()
    if let first = trimmed.unicodeScalars.first, first == "+" || ("0"..."9").contains(first),
      trimmed.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || $0 == "." })
    {
      return date(number: trimmed)
    }
    return iso8601(trimmed)
  }

  /// Parses `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or `±HH[:MM]`; `T` may be a space.
  package static func iso8601(_ text: String) -> Date? {
    var reader = Array(text.utf8)[...]
    func number(_ width: Int) -> Int? {
      guard reader.count >= width else { return nil }
      var value = 0
      for byte in reader.prefix(width) {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      reader = reader.dropFirst(width)
      return value
    }
    func take(_ byte: UInt8) -> Bool {
      guard reader.first == byte else { return false }
      reader = reader.dropFirst()
      return true
    }
    guard let year = number(4), take(UInt8(ascii: "-")), let month = number(2), take(UInt8(ascii: "-")),
      let day = number(2), take(UInt8(ascii: "T")) || take(UInt8(ascii: "t")) || take(UInt8(ascii: " ")),
      let hour = number(2), take(UInt8(ascii: ":")), let minute = number(2)
    else { return nil }
    var second = 0
    var fraction = 0.0
    if take(UInt8(ascii: ":")) {
      guard let value = number(2) else { return nil }
      second = value
      if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
        var scale = 0.1
        var digits = 0
        while let byte = reader.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
          fraction += Double(byte - UInt8(ascii: "0")) * scale
          scale /= 10
          digits += 1
          reader = reader.dropFirst()
        }
        guard digits > 0 else { return nil }
      }
    }
    var offsetSeconds = 0
    if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
      offsetSeconds = 0
    } else if let sign = reader.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
      reader = reader.dropFirst()
      guard let hours = number(2) else { return nil }
      _ = take(UInt8(ascii: ":"))
      let minutes = reader.isEmpty ? 0 : number(2)
      guard let minutes, hours <= 23, minutes <= 59 else { return nil }
      offsetSeconds = (hours * 3_600 + minutes * 60) * (sign == UInt8(ascii: "+") ? 1 : -1)
    } else {
      return nil
    }
    guard reader.isEmpty, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
      hour <= 23, minute <= 59, second <= 60
    else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds
    return Date(timeIntervalSince1970: Double(seconds) + fraction)
  }

  /// `2026-11-21T22:00:01.250Z`: UTC, always with milliseconds, so lines sort as text.
  package static func iso8601(_ date: Date) -> String {
    text(
      milliseconds: Int64((date.timeIntervalSince1970 * 1_000).rounded(.down)), dateTimeSeparator: UInt8(ascii: "T"),
      zone: UInt8(ascii: "Z"))
  }

  /// `2026-11-21 22:00:01.250`: UTC with milliseconds, as SQLite's date functions read it and as the history
  /// has always stored its times: to the nearest millisecond (half up), as GRDB's `DateFormatter` wrote them.
  package static func sqlite(_ date: Date) -> String {
    text(
      milliseconds: Int64((date.timeIntervalSince1970 * 1_000 + 0.5).rounded(.down)),
      dateTimeSeparator: UInt8(ascii: " "),
      zone: nil)
  }

  /// The date, time and milliseconds written digit by digit into one buffer: event lines and history rows
  /// take one or more of these per call, and interpolating padded numbers cost several allocations each.
  private static func text(milliseconds totalMs: Int64, dateTimeSeparator: UInt8, zone: UInt8?) -> String {
    let ms = Int((totalMs % 1_000 + 1_000) % 1_000)
    let totalSeconds = (totalMs - Int64(ms)) / 1_000
    var days = Int(totalSeconds / 86_400)
    var secondOfDay = Int(totalSeconds % 86_400)
    if secondOfDay < 0 {
      secondOfDay += 86_400
      days -= 1
    }
    let (year, month, day) = civilFromDays(days)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(26)
    func digits(_ value: Int, _ width: Int) {
      let text = String(value)
      for _ in 0..<max(0, width - text.utf8.count) { bytes.append(UInt8(ascii: "0")) }
      bytes += text.utf8
    }
    func twoDigits(_ value: Int) {
      bytes.append(UInt8(ascii: "0") + UInt8(value / 10))
      bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
    if (0...9_999).contains(year) {
      twoDigits(year / 100)
      twoDigits(year % 100)
    } else {
      digits(year, 4)
    }
    bytes.append(UInt8(ascii: "-"))
    twoDigits(month)
    bytes.append(UInt8(ascii: "-"))
    twoDigits(day)
    bytes.append(dateTimeSeparator)
    twoDigits(secondOfDay / 3_600)
    bytes.append(UInt8(ascii: ":"))
    twoDigits(secondOfDay / 60 % 60)
    bytes.append(UInt8(ascii: ":"))
    twoDigits(secondOfDay % 60)
    bytes.append(UInt8(ascii: "."))
    bytes.append(UInt8(ascii: "0") + UInt8(ms / 100))
    twoDigits(ms % 100)
    if let zone { bytes.append(zone) }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
  private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The date of a day count since 1970-01-01 (`civil_from_days`).
  static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
