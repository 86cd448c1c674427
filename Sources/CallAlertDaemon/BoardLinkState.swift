/// How a board's link stands, as `status` reports it.
enum BoardLinkState: String, Sendable {
  /// Not connected yet (the first handshake has not succeeded).
  case connecting
  /// A session is open and the board answers.
  case connected
  /// The port is open but the board stopped answering; the daemon calls it until it answers.
  case unresponsive
  /// The port went away (unplugged); the daemon reopens it when the board comes back.
  case disconnected
}
