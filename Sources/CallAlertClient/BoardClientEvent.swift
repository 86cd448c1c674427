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
  /// The board stopped answering while the port stays open: a keepalive (a LEASE while something plays, a
  /// PING while idle) went unanswered through every retry. Only with ``BoardClientOptions/liveness``. What
  /// it played stops at its lease; the client sends HELLO, with growing pauses, until it answers again.
  case unresponsive(reason: String)
  /// The board answers again after ``unresponsive(reason:)``: a new session is open, and this is what it is
  /// doing. Whatever should play there is the caller's to send again.
  case responsive(BoardInfo, BoardStatus)
  /// The line carried `bytes` bytes that decoded to no valid frame: reported once
  /// ``BoardClientOptions/noiseThreshold`` bytes came without a valid frame, then for each further
  /// threshold's worth, until a valid frame arrives (a wrong baud rate, or something else on the port).
  case unreadableLine(bytes: Int)
  /// The client gave up or was closed: no more events follow.
  case closed
}
