/// Every error found in one input (a config file), not just the first, so one run shows all there is
/// to fix. Each one names its place and field; ``description`` lists them one per line.
public struct InputErrors: Error, Equatable, Sendable, CustomStringConvertible {
  /// The errors in the order of their place in the input.
  public var errors: [InputError]

  /// Creates the error from a non-empty list.
  public init(_ errors: [InputError]) {
    self.errors = errors
  }

  /// One error per line (`location: field: message`), then "N errors" when there are several.
  public var description: String {
    let lines = errors.map(\.description)
    return errors.count > 1 ? (lines + ["\(errors.count) errors"]).joined(separator: "\n") : lines.joined()
  }
}
