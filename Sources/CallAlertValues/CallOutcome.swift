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
  /// Not a call: calls from one source refused by the call budget within a minute, summed in one row (id
  /// `refused:<source>:<first call's id>`; the caller is the first refused call's, the reason says how many).
  /// Never missed: a refused call never rang, and its sender was told.
  case refused
}
