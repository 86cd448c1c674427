/// Why a line or frame from a phone system could not be read: the column (1-based, in characters) and what
/// was expected. The reader adds the source's name and the stream offset.
public struct BridgeParseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The column of the field at fault, 1-based.
  public var column: Int
  /// What is wrong and what was expected.
  public var message: String

  /// Creates an error.
  public init(column: Int, _ message: String) {
    self.column = column
    self.message = message
  }

  /// `column N: message`.
  public var description: String { "column \(column): \(message)" }
}
