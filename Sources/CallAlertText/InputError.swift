/// A rejected input (a config file, a JSON line, a push payload) with the place that is wrong: a file with
/// line and column, or a field path with a byte offset, and what to change.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Where: `file:line:column`, or `<stdin>:line:column`, or `socket:byte N`.
  public var location: String
  /// The field path, e.g. `boards[1].serial`, or `aps.interruption-level`; empty when the input as a whole.
  public var field: String
  /// What is wrong and what to do.
  public var message: String

  /// Creates an error.
  public init(location: String, field: String = "", message: String) {
    self.location = location
    self.field = field
    self.message = message
  }

  /// `location: field: message`, the form editors turn into links; shown safely (a field named by a client
  /// may hold a terminal escape, see ``DisplayText/safe(_:)``), as it is printed and logged.
  public var description: String {
    DisplayText.safe(field.isEmpty ? "\(location): \(message)" : "\(location): \(field): \(message)")
  }
}
