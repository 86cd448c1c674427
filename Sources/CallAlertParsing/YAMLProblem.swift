import Yams

/// Why a YAML text could not be read, and where: the one reading of Yams' errors and marks that the config
/// parser and the pattern-file parser share, so both name the same `line:column` in the same words.
/// Lines and columns count from 1 (columns in Unicode scalars), as libYAML's marks do.
public struct YAMLProblem: Equatable, Sendable {
  /// 1-based line.
  public var line: Int
  /// 1-based column.
  public var column: Int
  /// What is wrong, as a user reads it (`YAML syntax error: …`, `duplicate key 'x' in one mapping; …`).
  public var message: String
  /// The keys that appear twice in one mapping (empty for other problems).
  public var duplicateKeys: [String]

  /// Creates a problem; line and column are clamped to 1.
  public init(line: Int, column: Int, message: String, duplicateKeys: [String] = []) {
    self.line = max(line, 1)
    self.column = max(column, 1)
    self.message = message
    self.duplicateKeys = duplicateKeys
  }

  /// The problem behind a Yams error thrown while loading `text`. Syntax errors carry libYAML's line and
  /// column; a reader error's character offset is turned into one. `displayKey` shows a duplicated key in
  /// the message (a parser of untrusted text shortens and escapes it there).
  public init(_ error: any Error, text: String, displayKey: (String) -> String = { $0 }) {
    guard let yaml = error as? YamlError else {
      self.init(line: 1, column: 1, message: "cannot read the file as YAML: \(error)")
      return
    }
    switch yaml {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      let during = context.map {
        " (\($0.text.trimmingTrailingWhitespace) at line \($0.mark.line), column \($0.mark.column))"
      }
      self.init(line: mark.line, column: mark.column, message: "YAML syntax error: \(problem)\(during ?? "")")
    case .duplicatedKeysInMapping(let duplicates, let context):
      let keys = duplicates.map { "'\(displayKey($0))'" }.joined(separator: ", ")
      self.init(
        line: context.mark.line, column: context.mark.column,
        message: "duplicate key \(keys) in one mapping; each key may appear once", duplicateKeys: duplicates)
    case .reader(let problem, let offset, _, _):
      let place = YAMLProblem.position(ofCharacterOffset: offset ?? 0, in: text)
      self.init(line: place.line, column: place.column, message: "cannot read the file: \(problem); save it as UTF-8")
    default:
      self.init(line: 1, column: 1, message: "cannot read the file as YAML: \(yaml)")
    }
  }

  /// Where `node` starts (its mark), or line 1, column 1 for a node without one.
  public static func position(of node: Node) -> (line: Int, column: Int) {
    (max(node.mark?.line ?? 1, 1), max(node.mark?.column ?? 1, 1))
  }

  /// The line and column of a character offset (in Swift `Character`s, as Yams' reader errors count) into
  /// `text`; a `\r\n` ends a line as `\n` does.
  public static func position(ofCharacterOffset offset: Int, in text: String) -> (line: Int, column: Int) {
    var line = 1
    var column = 1
    for character in text.prefix(max(offset, 0)) {
      if character == "\n" || character == "\r\n" {
        line += 1
        column = 1
      } else {
        column += character.unicodeScalars.count
      }
    }
    return (line, column)
  }
}

extension String {
  fileprivate var trimmingTrailingWhitespace: String {
    var result = self
    while let last = result.last, last.isWhitespace { result.removeLast() }
    return result
  }
}
