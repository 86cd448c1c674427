/// Text made safe for HTML (and XML): everything the page shows that came from outside (a caller's name, a call
/// id, a board's problem) goes through ``escape(_:)`` once, where it is written into the page; so does the URL in
/// sipgate's XML answer.
enum HTML {
  /// `&`, `<`, `>`, `"` and `'` as character references: safe in text and in quoted attribute values.
  static func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.append(character)
      }
    }
    return escaped
  }
}
