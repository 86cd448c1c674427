import CallAlertProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Something that happened, for the engine to act on.
public enum EngineInput: Equatable, Sendable {
  /// A call came in.
  case call(IncomingCall)
  /// The caller hung up.
  case hangup(callID: String)
  /// The call was answered somewhere; nil: every call.
  case answered(callID: String?)
  /// The caller gave up before anyone answered (a phone system's cancel, a FRITZ!Box DISCONNECT without
  /// CONNECT): the ring stops and the call is missed, as a phone counts it. A plain ``hangup(callID:)`` says
  /// only that the caller is gone, for sources that cannot tell an answer from a give-up.
  case unanswered(callID: String)
  /// Someone acknowledged: the board's button (which board) or the command line (nil). Stops every
  /// ringing call; with nothing ringing, clears the missed-call indicator.
  case acknowledge(board: String?)
  /// One missed call was acknowledged (the page's or the API's button beside it): it leaves the missed calls,
  /// and the indicator goes off with the last of them. Nothing that rings is stopped.
  case acknowledgeMissed(callID: String)
  /// Do-not-disturb was switched: the mode overrides the configured one until switched again or, with `until`,
  /// until that moment of the wall clock, when the configured mode applies again
  /// (``EngineEvent/doNotDisturbEnded(mode:until:)``). An `until` not after the moment of the input ends the
  /// switch at once.
  case setDoNotDisturb(DoNotDisturbMode, until: Date? = nil)
  /// Silent mode (motor only) was switched.
  case setSilent(Bool)
  /// A board went away (unplugged, not answering).
  case boardLost(board: String)
  /// A board came back (or connected for the first time). `playing` is the token its status reports
  /// playing, if any: a board whose cable was pulled keeps ringing until its lease lapses, and the engine
  /// stops that play unless the board is to ring again.
  case boardBack(board: String, playing: UInt32? = nil)
  /// A board reports that a play ended by itself (its own cap, its lease, a fault, or its button).
  case playEnded(board: String, token: UInt32, reason: PlayEndReason)
  /// The PLAY for `token` did not reach the board or was refused: nothing plays there. The board stays
  /// idle for that call (no PLAY is sent again on its own); a board that stopped answering is reported
  /// with ``boardLost(board:)`` and catches up on ``boardBack(board:playing:)``.
  case playFailed(board: String, token: UInt32)
  /// A board plays something other than the pattern its PLAY named (the board refused a slot, a name is
  /// unknown): `played` names what plays instead, `reason` says why. Reported as ``EngineEvent/patternFallback``.
  case patternFallback(board: String, token: UInt32, played: String, reason: String)
}

/// What the engine asks for: board commands and events to publish and record.
public enum EngineEffect: Equatable, Sendable {
  /// Play on a board under a token, with the remaining time as the board's own cap.
  case play(board: String, token: UInt32, pattern: PatternReference, capMs: UInt16, options: PlayOptions)
  /// Stop a token on a board.
  case stop(board: String, token: UInt32)
  /// Set a board's indicator (the missed-call blink, or off).
  case indicator(board: String, IndicatorSetting)
  /// Publish and record an event.
  case event(EngineEvent)
}

/// What happened to calls, for listeners and for the history.
public enum EngineEvent: Equatable, Sendable {
  /// A call rings on these boards with this pattern; `capMs` is how long it may ring from now.
  case ringing(IncomingCall, boards: [String], pattern: PatternReference, capMs: UInt64, silent: Bool)
  /// A call was held back (recorded, not rung).
  case suppressed(IncomingCall, reason: SuppressionReason)
  /// A ringing call stopped.
  case stopped(callID: String, reason: StopReason)
  /// A call was missed (reached its cap unanswered, was suppressed, or arrived too late to ring).
  case missed(IncomingCall, reason: MissedReason)
  /// Missed calls were acknowledged; the indicator is off.
  case missedAcknowledged(count: Int)
  /// One missed call was acknowledged; the indicator is off if it was the last.
  case missedCallAcknowledged(callID: String)
  /// A notification was ignored, with why (duplicate call id, unknown hangup, hangup before its call).
  case ignored(callID: String, reason: IgnoredReason)
  /// A call rings on `board` with `played` instead of its pattern (`requested`), for `reason`.
  case patternFallback(callID: String, board: String, requested: PatternReference, played: String, reason: String)
  /// Calls from `source` were refused (``IgnoredReason/tooManyCalls``): `count` of them since `since` (wall
  /// clock), `first` the first of them. One event per source and minute at most: a source's first refusal
  /// after a quiet minute is reported at once (count 1), those after it are summed and reported when the
  /// minute ends (see ``AlertEngine/refusalIntervalMs``). Each refused call also gets its own
  /// ``ignored(callID:reason:)``, for the answer to its sender.
  case callsRefused(source: CallSource, count: Int, first: IncomingCall, since: Date)
  /// A do-not-disturb switch made until a time (`mode`, `until`) ran out: the configured mode applies again.
  case doNotDisturbEnded(mode: DoNotDisturbMode, until: Date)
}

/// Why a call did not ring.
public enum SuppressionReason: String, Equatable, Sendable {
  /// Do-not-disturb (switched on, or quiet hours).
  case doNotDisturb = "do-not-disturb"
  /// A passive notification never rings.
  case passive
  /// Its hangup came first (a tombstone was waiting).
  case hungUpBeforeArrival = "hung-up-before-arrival"
  /// It arrived when its whole cap had already passed since it was sent.
  case tooLate = "too-late"
}

/// Why a ringing call stopped.
public enum StopReason: String, Equatable, Sendable {
  /// The caller hung up.
  case hangup
  /// Answered somewhere.
  case answered
  /// Acknowledged on a board's button or the command line.
  case acknowledged
  /// Its cap was reached.
  case cap
  /// The caller gave up before anyone answered.
  case unanswered
  /// Every board it rang on was lost (it rings again if one returns within the cap).
  case boardLost = "board-lost"
  /// A `critical` or local call needed its place in the full call budget: the oldest, least urgent call of
  /// the busiest source made room (see ``AlertEngine/maximumActiveCalls``). It also counts as missed, with
  /// ``MissedReason/displaced``.
  case displaced
}

/// Why a call counts as missed.
public enum MissedReason: String, Equatable, Sendable {
  /// It rang to its cap.
  case cap
  /// Do-not-disturb or another suppression held it back.
  case suppressed
  /// It arrived after its cap.
  case tooLate = "too-late"
  /// The caller gave up before anyone answered.
  case unanswered
  /// It rang, and was stopped to make room for a `critical` or local call (``StopReason/displaced``): nobody
  /// answered it, but it did not ring to its cap either.
  case displaced
}

/// Why a notification changed nothing.
public enum IgnoredReason: String, Equatable, Sendable {
  /// A call with this id is already known.
  case duplicateCall = "duplicate-call"
  /// A hangup or answer for no known call (a tombstone is kept for a late call).
  case unknownCall = "unknown-call"
  /// A call refused because its source has ``AlertEngine/maximumActiveCallsPerSource`` calls active already, or
  /// ``AlertEngine/maximumActiveCalls`` calls are active in all; never a `critical` call or one from the local
  /// socket, which displace another instead.
  case tooManyCalls = "too-many-calls"
  /// An acknowledgement of one missed call that is not waiting: no such call was missed, or it was
  /// acknowledged already.
  case notMissed = "not-missed"
}
