import CallAlertProtocol

/// What a ``BoardClient`` reports besides command answers.
public enum BoardClientEvent: Equatable, Sendable {
  /// An event from the board (button, play ended, fault, boot), already acknowledged.
  case event(Event)
  /// An actuator change (only when tracing was asked for in the options).
  case actuators(ActuatorTrace)
  /// The board restarted (new boot nonce) and the client opened a new session. Whatever it was playing
  /// stopped; the engine decides what to resume.
  case restarted(BoardInfo)
  /// The transport ended. When the client reconnects, ``reconnected(_:_:)`` follows.
  case disconnected(reason: String)
  /// The same board is back after a disconnect, with a new session, and this is what it is doing.
  case reconnected(BoardInfo, BoardStatus)
  /// The client gave up or was closed: no more events follow.
  case closed
}
