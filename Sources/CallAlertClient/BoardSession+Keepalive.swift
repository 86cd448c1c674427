import CallAlertProtocol
import CallAlertRuntime

/// Keepalives: the lease renewed while something plays, a PING while idle (``BoardClientOptions/Liveness``),
/// and the board marked unresponsive when one goes unanswered through every retry.
extension BoardSession {
  /// Starts the idle probes: a PING every ``BoardClientOptions/Liveness/idleProbe`` from now on.
  mutating func startIdleProbe(now: UInt64) {
    guard idleProbeAtMs == nil, let period = options.liveness?.idleProbe else { return }
    idleProbeAtMs = now + period.milliseconds
  }

  /// Sends the idle PING when its time has come to an open session that plays nothing (lease renewals watch
  /// a playing one), and sets the next one a period later; a PING still waiting for its answer is not doubled.
  mutating func probeIfDue(now: UInt64) {
    guard let due = idleProbeAtMs, now >= due, let period = options.liveness?.idleProbe else { return }
    idleProbeAtMs = now + period.milliseconds
    guard phase == .open, !lease.isPlaying, !isInFlight(.ping) else { return }
    send(.keepalive(.ping), .ping([]), now: now)
  }

  /// Renews the lease every third of it while something plays, from a lease's third after the PLAY.
  mutating func startLeaseRenewal(now: UInt64) {
    guard leaseRenewalAtMs == nil else { return }
    leaseRenewalAtMs = now + LeaseKeeper.renewalPeriod(leaseMs: options.leaseMs).milliseconds
  }

  /// Sends LEASE when its time has come while something plays, and sets the next one; stops once nothing
  /// plays. A LEASE still waiting for its answer is not doubled.
  mutating func renewLeaseIfDue(now: UInt64) {
    guard let due = leaseRenewalAtMs, now >= due else { return }
    guard lease.isPlaying else {
      leaseRenewalAtMs = nil
      return
    }
    leaseRenewalAtMs = now + LeaseKeeper.renewalPeriod(leaseMs: options.leaseMs).milliseconds
    guard isAttached, !isInFlight(.lease) else { return }
    send(.keepalive(.lease), .lease(ms: options.leaseMs), now: now)
  }

  private func isInFlight(_ keepalive: Keepalive) -> Bool {
    sent.values.contains { if case .keepalive(keepalive) = $0 { true } else { false } }
  }

  /// A keepalive went unanswered: the board is marked unresponsive (what it played stops at its lease),
  /// and HELLO is sent at once, then with growing pauses, until it answers.
  mutating func keepaliveFailed(_ name: String, _ error: BoardClientError, now: UInt64, _ actions: inout [Action]) {
    guard case .timeout = error, let liveness = options.liveness, !isUnresponsive, isAttached else { return }
    // A reopened port's handshake decides by itself whether the board is back.
    if case .handshaking(let handshake) = phase, case .reattach = handshake.purpose { return }
    lease.forgetAll()
    actions.append(.report(.unresponsive(reason: "\(name) got no answer after every retry")))
    let backoff = Backoff(initial: liveness.retryDelay, maximum: liveness.maxRetryDelay)
    if case .handshaking(var handshake) = phase {
      // A handshake under way becomes the first probe: its success reports the board back.
      handshake.purpose = .probe(backoff)
      phase = .handshaking(handshake)
    } else {
      phase = .unresponsive(retryAtMs: now, backoff: backoff)
    }
  }
}
