/// File paths as text, as Foundation's `NSString` path methods treat them, without full Foundation.
package enum PathText {
  /// The folder part of `path`, as `NSString.deletingLastPathComponent`: `/tmp/a/b` gives `/tmp/a`, `/tmp/a/`
  /// gives `/tmp`, `/tmp` gives `/`, `b` gives the empty string and `/` stays `/`.
  package static func deletingLastComponent(_ path: String) -> String {
    var text = Substring(path)
    while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
    guard text != "/" else { return "/" }
    guard let slash = text.lastIndex(of: "/") else { return "" }
    var folder = text[..<slash]
    while folder.hasSuffix("/") { folder = folder.dropLast() }
    return folder.isEmpty ? "/" : String(folder)
  }
}
