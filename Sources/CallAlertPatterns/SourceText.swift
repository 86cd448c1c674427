import CallAlertParsing
internal import Yams

/// A pattern file's text split into lines, to turn Yams marks and offsets inside strings into
/// ``SourceLocation``s. Columns count Unicode scalars from 1, as libYAML's marks do.
struct SourceText {
  /// The file's path as the user gave it.
  let file: String
  /// The lines, without their terminators.
  let lines: [[Unicode.Scalar]]

  init(file: String, text: String) {
    self.file = file
    var lines: [[Unicode.Scalar]] = [[]]
    for scalar in text.unicodeScalars {
      if scalar == "\n" {
        if lines[lines.count - 1].last == "\r" { lines[lines.count - 1].removeLast() }
        lines.append([])
      } else {
        lines[lines.count - 1].append(scalar)
      }
    }
    self.lines = lines
  }

  /// A location in this file.
  func location(line: Int, column: Int) -> SourceLocation {
    SourceLocation(file: file, line: max(line, 1), column: max(column, 1))
  }

  /// Where `node` starts; its mark, or the file's start for nodes without one.
  func location(of node: Node) -> SourceLocation {
    let (line, column) = YAMLProblem.position(of: node)
    return location(line: line, column: column)
  }

  /// Maps offsets inside a scalar's value to places in the file.
  func locator(for node: Node) -> ScalarLocator {
    ScalarLocator(node: node, in: self)
  }
}

/// The file location of every Unicode scalar of a YAML scalar's value (and one past its end), so an
/// error at column 14 of an RTTTL string is reported at the right column of the file.
///
/// It walks the source from the node's mark, matching the value's characters and skipping what YAML
/// removed: the opening quote, escapes (`\x41` is one character), doubled single quotes, indentation
/// and folded line breaks. If the two ever disagree it falls back to counting from the mark.
struct ScalarLocator {
  private let locations: [SourceLocation]

  init(node: Node, in source: SourceText) {
    let start = source.location(of: node)
    guard let scalar = node.scalar else {
      locations = [start]
      return
    }
    let value = Array(scalar.string.unicodeScalars)
    var line = start.line - 1
    var column = start.column - 1
    switch scalar.style {
    case .singleQuoted, .doubleQuoted: column += 1
    case .literal, .folded:
      line += 1
      column = 0
    default: break
    }
    let lines = source.lines
    func character(_ ahead: Int = 0) -> Unicode.Scalar? {
      guard line < lines.count else { return nil }
      let index = column + ahead
      if index < lines[line].count { return lines[line][index] }
      return index == lines[line].count ? "\n" : nil
    }
    func advance() {
      if line < lines.count, column < lines[line].count {
        column += 1
      } else {
        line += 1
        column = 0
      }
    }
    var found: [SourceLocation] = []
    matching: for wanted in value {
      while let current = character() {
        let here = source.location(line: line + 1, column: column + 1)
        if scalar.style == .doubleQuoted && current == "\\" {
          let next = character(1)
          if next == "\n" {
            // A line continuation produces no character.
            advance()
            advance()
            continue
          }
          let length = next == "x" ? 4 : next == "u" ? 6 : next == "U" ? 10 : 2
          found.append(here)
          for _ in 0..<length { advance() }
          continue matching
        }
        if scalar.style == .singleQuoted && current == "'" && character(1) == "'" {
          found.append(here)
          advance()
          advance()
          continue matching
        }
        if current == wanted {
          found.append(here)
          advance()
          continue matching
        }
        guard current == " " || current == "\t" || current == "\n" else { break matching }
        advance()
      }
      break
    }
    // Past the end of what matched, count columns from the last known place.
    var last =
      found.last.map { SourceLocation(file: $0.file, line: $0.line, column: $0.column + 1) }
      ?? source.location(line: line + 1, column: column + 1)
    while found.count < value.count + 1 {
      found.append(last)
      last.column += 1
    }
    locations = found
  }

  /// The location of value offset `offset` (clamped to one past the end).
  func location(at offset: Int) -> SourceLocation {
    locations[min(max(offset, 0), locations.count - 1)]
  }
}

extension SourceText {
  /// A diagnostic for a Yams error, at the place it names.
  func diagnostic(for error: any Error, text: String) -> Diagnostic {
    let problem = YAMLProblem(error, text: text)
    return .error(at: location(line: problem.line, column: problem.column), problem.message)
  }
}

extension String {
  var trimmingTrailingWhitespace: String {
    var result = self
    while let last = result.last, last.isWhitespace { result.removeLast() }
    return result
  }
}
