import CallAlertEngine

/// What a push payload means for the engine.
public enum PushNotification: Equatable, Sendable {
  /// An incoming call.
  case call(IncomingCall)
  /// The call with this id was hung up or cancelled.
  case hangup(callID: String)
  /// An incoming call whose push names no call id (servers that ring one call at a time often send none).
  /// Its `id` is empty: ``AnonymousCallTracker`` gives it one, or finds the call it repeats.
  case callWithoutID(IncomingCall)
  /// A hangup whose push names no call id: it ends the id-less call from `callerNumber` when the push names
  /// one, else the newest id-less call from the same source (see ``AnonymousCallTracker``).
  case hangupWithoutID(callerNumber: String?)
  /// Not a call notification (a message, a background refresh, a shape nothing matches); why, for the log.
  case ignored(reason: String)
}
