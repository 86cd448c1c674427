/// Something a source's client did or saw, for the log (the daemon prefixes the source's name).
public enum BridgeReport: Equatable, Sendable {
  /// Connected (AMI: and logged in): the text says to what.
  case connected(String)
  /// The connection failed or was lost; the next attempt comes after `retryIn`.
  case failing(reason: String, retryIn: Duration)
  /// A line or frame that could not be read, at this byte offset of the connection's stream; it was skipped.
  case unreadable(offset: Int, error: BridgeParseError)
  /// The phone system answered an action with an error (AMI `Response: Error`).
  case refused(String)
  /// A call's notification, as the tracker read it.
  case notification(BridgeNotification)
  /// A call the filters keep from ringing, with why.
  case held(String)
}
