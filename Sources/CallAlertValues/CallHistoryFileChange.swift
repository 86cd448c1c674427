/// What became of the history's file while the daemon had it open.
public enum CallHistoryFileChange: String, Codable, Sendable, Equatable {
  /// Nothing is at the path any more: the file (or its folder) was removed or moved away.
  case removed
  /// Another file is at the path.
  case replaced
}
