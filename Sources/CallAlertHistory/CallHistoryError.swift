/// A history that cannot be opened or read: a folder that cannot be made, or a row this version does not
/// understand (written by a newer one).
public struct CallHistoryError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The database's path, or `:memory:`.
  public var path: String
  /// What is wrong.
  public var message: String

  /// Creates an error.
  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }

  /// `path: message`.
  public var description: String { "\(path): \(message)" }
}
