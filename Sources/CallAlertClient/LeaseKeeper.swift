import CallAlertProtocol

/// What plays on the board as far as the client knows, and so whether the lease needs renewing: a PLAY
/// supersedes whatever played, STOP and PLAY_ENDED end plays, and a board that restarted, went away or
/// stopped answering plays nothing any more (it stops at its lease). A pure value; the client renews the
/// lease at a third of its length while ``isPlaying``.
struct LeaseKeeper: Equatable {
  /// Tokens playing on the board.
  private(set) var tokens: Set<UInt32> = []

  /// Whether anything plays (the lease must be renewed).
  var isPlaying: Bool { !tokens.isEmpty }

  /// Notes a command's reply; true when a play started (the renewal must run).
  mutating func track(_ command: Command, _ reply: Reply) -> Bool {
    switch (command, reply) {
    case (.play(let request), .playing):
      tokens = [request.token]  // a PLAY supersedes whatever played
      return true
    case (.stop(let token), .stopped):
      if token == Command.stopAll { tokens.removeAll() } else { tokens.remove(token) }
    default: break
    }
    return false
  }

  /// The board reported a play ended.
  mutating func ended(_ token: UInt32) { tokens.remove(token) }

  /// The board plays nothing any more (restart, disconnect, unanswered keepalive, new handshake).
  mutating func forgetAll() { tokens.removeAll() }

  /// How often to renew a lease of `leaseMs`: a third of it, so that two renewals may go missing.
  static func renewalPeriod(leaseMs: UInt16) -> Duration { .milliseconds(Int(leaseMs) / 3) }
}
