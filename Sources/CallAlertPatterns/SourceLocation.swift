/// A place in a text file, for error messages a person can act on: `file:line:column`.
public struct SourceLocation: Equatable, Hashable, Sendable, CustomStringConvertible {
  /// The file's path as the user gave it.
  public var file: String
  /// 1-based line.
  public var line: Int
  /// 1-based column.
  public var column: Int

  /// Creates a location.
  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  /// `file:line:column`, the form editors and terminals turn into links.
  public var description: String { "\(file):\(line):\(column)" }
}
