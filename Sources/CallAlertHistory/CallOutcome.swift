/// How a call ended, as the history records it.
public enum CallOutcome: String, CaseIterable, Codable, Sendable {
  /// It is still ringing (or waiting for a board).
  case ringing
  /// The caller hung up while it rang.
  case hungUp = "hung-up"
  /// It was answered elsewhere.
  case answered
  /// Someone acknowledged it on a board or the command line.
  case acknowledged
  /// It rang to its cap: missed.
  case missed
  /// Do-not-disturb or another rule held it back: missed, never rang.
  case suppressed
}
