/// Finds the known word a mistyped one was probably meant to be, for "did you mean" hints: the one
/// edit distance the config, control and push parsers and the pattern-file parser share.
public enum Suggestion {
  /// The closest of `candidates` to `word`, or nil when none is close: the same word up to case, `_` and
  /// `-` (`quietHours` for `quiet_hours`), or at most two edits away (three for long words).
  public static func closest(to word: String, in candidates: [String]) -> String? {
    // A long word is no typo of a short one, and the distance costs the product of the lengths.
    guard word.utf8.count <= maximumWordBytes else { return nil }
    let wanted = normalized(word)
    if let same = candidates.first(where: { normalized($0) == wanted }) { return same }
    let scored = candidates.map { (candidate: $0, distance: distance(wanted, normalized($0))) }
    guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
    let limit = wanted.count >= 8 ? 3 : 2
    return best.distance <= limit && best.distance < wanted.count ? best.candidate : nil
  }

  /// Words longer than this (in UTF-8 bytes) get no suggestion.
  public static let maximumWordBytes = 128

  /// `; did you mean 'x'?` or nothing.
  public static func hint(for word: String, in candidates: [String]) -> String {
    closest(to: word, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
  }

  private static func normalized(_ word: String) -> [Character] {
    Array(word.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
  }

  /// Levenshtein distance with adjacent transpositions counted as one edit.
  public static func distance(_ a: String, _ b: String) -> Int { distance(Array(a), Array(b)) }

  /// Levenshtein distance with adjacent transpositions counted as one edit.
  public static func distance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previousPrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], previousPrevious[j - 2] + 1)
        }
      }
      previousPrevious = previous
      previous = current
    }
    return previous[b.count]
  }
}
