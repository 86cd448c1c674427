import CallAlertProtocol

/// A call that rings (or waits for a board) with everything decided when it arrived, so that switching
/// do-not-disturb, silent mode or the configuration later does not change it, as on a phone.
struct ActiveCall: Equatable, Sendable {
  /// The call as received.
  var call: IncomingCall
  /// The caller in E.164; nil when withheld.
  var number: String?
  /// Arrival order, so that the newest of calls arriving in the same millisecond is well defined.
  var sequence: UInt64
  /// The monotonic ms it arrived.
  var startMs: UInt64
  /// The monotonic ms its cap is reached: the configured cap after its sent-at time, never later.
  var deadlineMs: UInt64
  /// The boards it is meant for, in the configuration's order.
  var boards: [String]
  /// The pattern it plays.
  var pattern: PatternReference
  /// Whether it plays with the buzzer muted (silent mode; never for a critical call).
  var silent: Bool
  /// Whether a rule asked for the buzzer alone (the motor kept still), unless silent or on a vibrate-only board.
  var buzzerOnly = false

  /// The call's id.
  var id: String { call.id }

  /// The time left to its cap at `nowMs`.
  func remainingMs(at nowMs: UInt64) -> UInt64 { deadlineMs > nowMs ? deadlineMs - nowMs : 0 }

  /// Whether this call, rather than `other`, plays on a board both are meant for: the more urgent one, and
  /// between equally urgent ones the newer, because a phone shows the call that just arrived.
  func outranks(_ other: ActiveCall) -> Bool {
    if call.level != other.call.level { return call.level > other.call.level }
    return (startMs, sequence) > (other.startMs, other.sequence)
  }
}

/// What the engine knows about one configured board.
struct BoardState: Equatable, Sendable {
  /// Whether the daemon has a connection to it.
  var connected = false
  /// The call the board was last given (playing, or finished by itself); nil: none. A new PLAY is sent only
  /// when the board's choice differs from this, so a pattern that completed is not restarted in a loop.
  var callID: String?
  /// The token of the play running on the board; nil when nothing runs there.
  var token: UInt32?
  /// Plays of `callID` the board ended by itself (lease lapsed, fault) and the engine restarted. Bounded by
  /// ``AlertEngine/maximumRestarts`` so that a board that faults on every PLAY is not hammered until the cap.
  var restarts = 0
  /// The call those restarts were for; giving the board another call starts the count afresh.
  var restartedCall: String?
}

/// Ids and numbers the engine remembers for a while after the call itself is gone. Looked at on every
/// input, so each map finds what expired in O(log n) (``TimedMap``), never by a scan.
struct CallMemory: Equatable, Sendable {
  /// Hangups and answers that came before their call: id -> monotonic ms the tombstone expires.
  var tombstones = TimedMap()
  /// Calls that ended, were suppressed or arrived too late: id -> monotonic ms they are forgotten. A
  /// notification delivered twice (push and socket, or a retry) must not ring again.
  var finished = TimedMap()
  /// The latest arrival (monotonic ms) of a call from each E.164 number, for repeated-caller breakthrough.
  var arrivals = TimedMap()

  /// The first ms at which a remembered arrival no longer counts: the window's boundary is included.
  static func arrivalExpiry(_ arrivalMs: UInt64, windowMs: UInt64?) -> UInt64 {
    arrivalMs.saturatingAdd(windowMs ?? 0).saturatingAdd(1)
  }

  /// Forgets what has expired by `nowMs`.
  mutating func prune(at nowMs: UInt64, repeatedCallerWindowMs windowMs: UInt64?) {
    tombstones.removeExpired { $0 <= nowMs }
    finished.removeExpired { $0 <= nowMs }
    if windowMs == nil {
      arrivals.removeAll()
    } else {
      arrivals.removeExpired { Self.arrivalExpiry($0, windowMs: windowMs) <= nowMs }
    }
  }

  /// The earliest ms at which something is forgotten.
  func nextExpiryMs(repeatedCallerWindowMs windowMs: UInt64?) -> UInt64? {
    let arrivalExpiry = windowMs == nil ? nil : arrivals.smallest.map { Self.arrivalExpiry($0, windowMs: windowMs) }
    return [tombstones.smallest, finished.smallest, arrivalExpiry].compactMap { $0 }.min()
  }
}

/// Play tokens: one counter from 1 that skips 0 when it wraps, since 0 is not a valid token.
struct TokenCounter: Equatable, Sendable {
  /// The token the next play gets.
  var next: UInt32 = 1

  /// Hands out the next token.
  mutating func take() -> UInt32 {
    let token = next
    next = next == .max ? 1 : next + 1
    return token
  }
}

extension UInt64 {
  /// `self + other`, or the largest value instead of a trap: a configured duration (a tombstone of "forever")
  /// must not crash the daemon.
  func saturatingAdd(_ other: UInt64) -> UInt64 {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? .max : sum
  }
}
