import CallAlertText

/// What an id (a call id, a board name in a request) may be: non-empty, valid UTF-8 (the readers refuse
/// invalid bytes before this), no control characters, at most ``maximumBytes`` long.
///
/// Ids key the engine's calls and the history's records, and are printed in events and `status`: an id that
/// silently lost a byte would collide with another, and one carrying `\u0000` would be cut short in SQLite.
public enum CallID {
  /// The longest id, in UTF-8 bytes.
  public static let maximumBytes = 256

  /// Why `id` is not acceptable, or nil when it is.
  public static func problem(_ id: String) -> String? {
    if id.isEmpty { return "is empty; give a non-empty id such as \"c1\"" }
    if id.utf8.count > maximumBytes {
      return "\(DisplayText.excerpt(id, limit: 20)) is too long for an id; use at most \(maximumBytes) bytes"
    }
    for (offset, scalar) in id.unicodeScalars.enumerated() where DisplayText.needsEscape(scalar) {
      let code = String(scalar.value, radix: 16, uppercase: true)
      let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
      return "\"\(DisplayText.excerpt(id, limit: 20))\" holds the control character U+\(padded) at character "
        + "\(offset + 1); an id must be printable text"
    }
    return nil
  }
}
