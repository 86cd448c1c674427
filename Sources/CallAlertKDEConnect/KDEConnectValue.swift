/// A value in a KDE Connect packet's body, as far as CallAlert reads or writes one: the protocol's bodies hold
/// strings, integers, booleans and lists of strings (capabilities); anything else is kept only as its kind, so
/// a reader can say what it found instead of what it expected.
public enum KDEConnectValue: Equatable, Sendable {
  /// A string.
  case string(String)
  /// A number written as an integer (`1716`, a millisecond timestamp).
  case integer(Int64)
  /// `true` or `false`.
  case bool(Bool)
  /// A list whose elements are all strings.
  case strings([String])
  /// JSON's `null`.
  case null
  /// Anything else (a fraction, an object, a mixed list): its kind for messages, such as "an object".
  case other(kind: String)

  /// The string, or nil.
  public var string: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The integer, or nil.
  public var integer: Int64? {
    if case .integer(let value) = self { return value }
    return nil
  }

  /// The boolean, or nil.
  public var bool: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// A short name of the kind, for messages.
  public var kindDescription: String {
    switch self {
    case .string: "a string"
    case .integer: "an integer"
    case .bool: "a boolean"
    case .strings: "a list of strings"
    case .null: "null"
    case .other(let kind): kind
    }
  }
}
