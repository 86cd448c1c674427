/// Values from outside (ids, names, numbers, keys, config values) as they may be shown: on a terminal, in a
/// log, in an error message.
///
/// A caller's name is whatever the sender put in the payload; printed raw, an escape sequence in it would
/// drive the user's terminal (clear the screen, retitle the window, fake a line), and a 50 MB value would be
/// echoed whole. ``safe(_:)`` escapes what a terminal would act on; ``excerpt(_:limit:)`` also shortens.
public enum DisplayText {
  /// How many characters of a value an error message quotes.
  public static let excerptLimit = 60

  /// `text` with every control character escaped: `\n`, `\r`, `\t`, and `\u001B` for the others (C0, DEL,
  /// C1, and the bidirectional overrides and isolates that reorder what a terminal shows), as JSON writes
  /// them, since most values arrive in JSON (Swift's own `\u{1B}` read as code to a user). Everything else,
  /// including a backslash, is kept as is.
  public static func safe(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where needsEscape(scalar):
        let digits = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// ``safe(_:)`` of at most `limit` characters of `text`, with `…` and the full length when it was cut:
  /// `aaaa… (52428800 bytes)`. Costs O(limit), whatever the length of `text`.
  public static func excerpt(_ text: String, limit: Int = excerptLimit) -> String {
    guard let prefix = prefix(of: text, limit: limit) else { return safe(text) }
    return safe(prefix) + "… (\(text.utf8.count) bytes)"
  }

  /// The first `limit` characters of `text` when it is longer; nil when it is not. O(limit).
  public static func prefix(of text: String, limit: Int = excerptLimit) -> String? {
    var end = text.startIndex
    var count = 0
    while count < limit, end < text.endIndex {
      end = text.index(after: end)
      count += 1
    }
    return end < text.endIndex ? String(text[..<end]) : nil
  }

  /// Whether a terminal would act on `scalar` rather than show it.
  public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: true
    case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    case 0x2028, 0x2029: true
    default: false
    }
  }
}
