import CallAlertEngine
import CallAlertProtocol
import Logging

/// What a board's event means for the engine, for the link state `status` shows, and for the log: a pure
/// mapping, so that what follows an event, and in which order, is stated in one place (the engine learns
/// that a board stopped answering before `status` shows it unresponsive, never the other way round).
enum BoardEventRoute {
  /// One thing the driver does for an event, in order.
  enum Step: Equatable {
    /// Tell the press listeners.
    case pressed(PressKind)
    /// Hand the engine an input.
    case submit(EngineInput)
    /// The link is in this state now (`connected` also clears the last problem).
    case link(BoardLinkState)
    /// Nothing plays on the board any more.
    case forgetPlaying
    /// The play of `token` ended: if it is the one playing, nothing plays.
    case ended(token: UInt32)
    /// Log a line.
    case log(Logger.Level, String)
    /// Log a fault, or line noise, through the throttle of repeated lines.
    case fault(kind: String, detail: String)
    case lineNoise(bytes: Int)
  }

  /// The steps for `event` from board `board`.
  static func steps(for event: BoardDeviceEvent, board: String) -> [Step] {
    switch event {
    case .pressed(let kind): [.pressed(kind), .submit(.acknowledge(board: board))]
    case .playEnded(let token, let reason):
      [.ended(token: token), .submit(.playEnded(board: board, token: token, reason: reason))]
    case .fault(let kind, let detail): [.fault(kind: kind, detail: detail)]
    case .lineNoise(let bytes): [.lineNoise(bytes: bytes)]
    case .unresponsive(let reason):
      [
        .log(.warning, "board \(board) not answering (\(reason)); marked unresponsive, calling it until it answers"),
        .submit(.boardLost(board: board)), .link(.unresponsive),
      ]
    case .responsive(let playing):
      [
        .link(.connected), .log(.notice, "board \(board) answers again; session reopened"),
        .submit(.boardBack(board: board, playing: playing)),
      ]
    case .restarted:
      [
        .forgetPlaying, .link(.connected), .log(.warning, "board \(board) restarted"),
        .submit(.boardBack(board: board)),
      ]
    case .lost(let reason):
      [
        .link(.disconnected), .forgetPlaying, .log(.warning, "board \(board) lost: \(reason)"),
        .submit(.boardLost(board: board)),
      ]
    case .reconnected(let playing): [.link(.connected), .submit(.boardBack(board: board, playing: playing))]
    case .closed: [.link(.disconnected)]
    }
  }
}
