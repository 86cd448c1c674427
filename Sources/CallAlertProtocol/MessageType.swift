/// The type byte of a frame. Commands (host to board) are 0x01-0x7F, events (board to host) 0x80-0xBF,
/// notifications (board to host, unacknowledged) 0xC0-0xFF. An answer carries the type it answers.
public enum MessageType: UInt8, CaseIterable, Sendable {
  /// Opens a session and negotiates the version, payload size and window.
  case hello = 0x01
  /// Echoes its payload.
  case ping = 0x02
  /// Asks for the board's identity, capabilities and pattern table.
  case getInfo = 0x03
  /// Asks for what the board is doing now.
  case getStatus = 0x04
  /// Plays a stored or inline pattern under a token and a cap.
  case play = 0x10
  /// Stops one token or everything.
  case stop = 0x11
  /// Renews the host's lease and sets its length.
  case lease = 0x12
  /// Sets an LED's indicator mode (off, on, blink).
  case setIndicator = 0x13
  /// Starts a pattern-table transfer.
  case tableBegin = 0x20
  /// Carries a chunk of the pattern table at an offset.
  case tableData = 0x21
  /// Verifies the staged table and makes it the active one, atomically.
  case tableCommit = 0x22
  /// Abandons a transfer; the active table stays.
  case tableAbort = 0x23
  /// Reads bytes of the active or staged table.
  case tableRead = 0x24
  /// Restarts the board after answering.
  case reset = 0x30
  /// The board has started; sent after every reset with a fresh nonce.
  case boot = 0x80
  /// A button was pressed or long-pressed.
  case button = 0x81
  /// A PLAY ended, with its reason.
  case playEnded = 0x82
  /// The board detected a fault.
  case fault = 0x83
  /// Every actuator's state after a change (only when the host asked for tracing in HELLO).
  case actuators = 0xC0

  /// Whether this is a board event (acknowledged by the host, in the board's sequence space).
  public var isEvent: Bool { rawValue & 0xC0 == 0x80 }
  /// Whether this is a command (answered by the board, in the host's sequence space).
  public var isCommand: Bool { rawValue & 0x80 == 0 }
  /// Whether this is an unacknowledged notification.
  public var isNotification: Bool { rawValue & 0xC0 == 0xC0 }
  /// Whether the board may execute a duplicate of this command again instead of replaying its answer:
  /// only commands that change nothing.
  public var isIdempotent: Bool {
    switch self {
    case .ping, .getInfo, .getStatus, .tableRead: true
    default: false
    }
  }
}
