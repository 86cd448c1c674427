import CallAlertRuntime

/// The pauses between tries to reach a board that is not there, one rule for every kind of board: the
/// driver's tries to open a board, a serial client's reopening of an unplugged port, and a light's.
enum BoardReconnectPolicy {
  /// The first pause: short, so that a board plugged back in rings again at once.
  static var initialDelay: Duration { .milliseconds(200) }
  /// The longest pause: a board left unplugged costs a try every few seconds, no more.
  static var maxDelay: Duration { .seconds(5) }
  /// The pauses, from ``initialDelay`` doubling up to ``maxDelay``.
  static var backoff: Backoff { Backoff(initial: initialDelay, maximum: maxDelay) }
}
