/// One `"key": value` of a packet's body, with where the value sits in the line (for errors).
public struct KDEConnectField: Equatable, Sendable {
  /// The key.
  public var key: String
  /// The value.
  public var value: KDEConnectValue
  /// The byte offset of the value in the line it was read from; 0 for a field made here.
  public var offset: Int

  /// Creates a field.
  public init(_ key: String, _ value: KDEConnectValue, offset: Int = 0) {
    self.key = key
    self.value = value
    self.offset = offset
  }

  /// Equal when key and value are: where a field was read is not part of what it says.
  public static func == (lhs: KDEConnectField, rhs: KDEConnectField) -> Bool {
    lhs.key == rhs.key && lhs.value == rhs.value
  }
}
