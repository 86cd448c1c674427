import CallAlertEngine

/// What a push payload means for the engine.
public enum PushNotification: Equatable, Sendable {
  /// An incoming call.
  case call(IncomingCall)
  /// The call with this id was hung up or cancelled.
  case hangup(callID: String)
  /// Not a call notification (a message, a background refresh, a shape nothing matches); why, for the log.
  case ignored(reason: String)
}
