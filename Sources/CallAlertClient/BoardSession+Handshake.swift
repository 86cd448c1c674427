import CallAlertProtocol
import CallAlertRuntime

/// The handshake: HELLO (sent again while it goes unanswered, up to the options' attempts), version
/// negotiation, the lease the client asks for, and for a board that is back, its status; then what its
/// purpose reports, and the callers and commands that waited for it.
extension BoardSession {
  /// Starts the link over and sends HELLO; commands still in flight fail as refused by a restarted board
  /// (a single command among them is resent once the session opens).
  mutating func startHandshake(_ purpose: Handshake.Purpose, now: UInt64, _ actions: inout [Action]) {
    phase = .handshaking(Handshake(purpose: purpose, step: .hello(attempt: 1)))
    sendHello(now: now, &actions)
  }

  /// Drops output still queued for the line, restarts the link and sends HELLO: a board behind a slow line
  /// still busy with an earlier session's frames (or still booting) gets a fresh start each attempt.
  private mutating func sendHello(now: UInt64, _ actions: inout [Action]) {
    actions.append(.discardQueuedOutput)
    let abandoned = endpoint.restart(nonce: endpoint.nonce, firstSequence: endpoint.sender.nextSequence)
    for case .failed(let sequence, _) in abandoned { settle(sequence, .failure(.boardRestarted), now: now, &actions) }
    lease.forgetAll()
    send(.hello, .hello(options.hello), now: now)
  }

  mutating func helloAnswered(_ result: Result<Message, BoardClientError>, now: UInt64, _ actions: inout [Action]) {
    guard case .handshaking(var handshake) = phase, case .hello(let attempt) = handshake.step else { return }
    let hello = options.hello
    switch result {
    case .success(.reply(_, .info(let info))):
      guard
        let terms = SessionTerms.negotiate(
          hostMin: hello.minVersion, hostMax: hello.maxVersion, hostMaxPayload: Int(hello.maxPayload),
          hostWindow: Int(hello.window), boardMin: info.minVersion, boardMax: info.maxVersion,
          boardMaxPayload: Int(info.capabilities.maxPayload), boardWindow: Int(info.capabilities.window))
      else {
        let mismatch = BoardClientError.versionMismatch(
          boardMin: info.minVersion, boardMax: info.maxVersion, hostMin: hello.minVersion, hostMax: hello.maxVersion)
        return handshakeFailed(mismatch, now: now, &actions)
      }
      if case .reattach = handshake.purpose, let boardSerial, info.serial != boardSerial {
        let wrong = BoardClientError.wrongBoard(
          expected: String(decoding: boardSerial, as: UTF8.self), found: String(decoding: info.serial, as: UTF8.self))
        return handshakeFailed(wrong, now: now, &actions)
      }
      endpoint.apply(terms)
      self.terms = terms
      self.info = info
      if boardSerial == nil { boardSerial = info.serial }
      startIdleProbe(now: now)
      guard info.capabilities.leaseMs == options.leaseMs else {
        handshake.step = .lease
        phase = .handshaking(handshake)
        return send(.handshakeLease, .lease(ms: options.leaseMs), now: now)
      }
      established(now: now, &actions)
    case .success(.nak(_, let nak)):
      guard let board = nak.supportedVersions else {
        return handshakeFailed(.nak(command: .hello, nak), now: now, &actions)
      }
      let mismatch = BoardClientError.versionMismatch(
        boardMin: board.min, boardMax: board.max, hostMin: hello.minVersion, hostMax: hello.maxVersion)
      handshakeFailed(mismatch, now: now, &actions)
    case .success: handshakeFailed(.unexpectedReply(command: .hello), now: now, &actions)
    case .failure(.timeout) where attempt < options.handshakeAttempts:
      handshake.step = .hello(attempt: attempt + 1)
      phase = .handshaking(handshake)
      sendHello(now: now, &actions)
    case .failure(let error): handshakeFailed(error, now: now, &actions)
    }
  }

  /// The LEASE of the handshake: any answer sets it (a board refusing it keeps its own).
  mutating func leaseAnswered(_ result: Result<Message, BoardClientError>, now: UInt64, _ actions: inout [Action]) {
    guard case .handshaking(let handshake) = phase, handshake.step == .lease else { return }
    if case .failure(let error) = result { return handshakeFailed(error, now: now, &actions) }
    info?.capabilities.leaseMs = options.leaseMs
    established(now: now, &actions)
  }

  /// The session is open; a board that is back reports what it is doing first.
  private mutating func established(now: UInt64, _ actions: inout [Action]) {
    guard case .handshaking(var handshake) = phase else { return }
    switch handshake.purpose {
    case .reattach, .probe:
      handshake.step = .status
      phase = .handshaking(handshake)
      send(.handshakeStatus, .getStatus, now: now)
    case .open, .restarted: opened(status: nil, now: now, &actions)
    }
  }

  mutating func statusAnswered(_ result: Result<Message, BoardClientError>, now: UInt64, _ actions: inout [Action]) {
    switch result {
    case .success(.reply(_, .status(let status))): opened(status: status, now: now, &actions)
    case .success(.nak(_, let nak)): handshakeFailed(.nak(command: .getStatus, nak), now: now, &actions)
    case .success: handshakeFailed(.unexpectedReply(command: .getStatus), now: now, &actions)
    case .failure(let error): handshakeFailed(error, now: now, &actions)
    }
  }

  private mutating func opened(status: BoardStatus?, now: UInt64, _ actions: inout [Action]) {
    guard case .handshaking(let handshake) = phase, let info else { return }
    phase = .open
    switch (handshake.purpose, status) {
    case (.restarted, _): actions.append(.report(.restarted(info)))
    case (.reattach, let status?): actions.append(.report(.reconnected(info, status)))
    case (.probe, let status?): actions.append(.report(.responsive(info, status)))
    default: break
    }
    for id in openers { actions.append(.opened(id, .success(info))) }
    openers.removeAll()
    let waiting = queued
    queued.removeAll()
    for item in waiting {
      request(item.id, item.command, single: item.single, resent: item.resent, now: now, &actions)
    }
  }

  /// The handshake failed: so do the callers waiting for it; then its purpose decides what comes next.
  private mutating func handshakeFailed(_ error: BoardClientError, now: UInt64, _ actions: inout [Action]) {
    guard case .handshaking(let handshake) = phase else { return }
    for id in openers { actions.append(.opened(id, .failure(error))) }
    openers.removeAll()
    for item in queued { actions.append(.answer(item.id, .failure(error))) }
    queued.removeAll()
    switch handshake.purpose {
    case .open, .restarted: phase = .idle
    case .probe(var backoff):
      phase = .unresponsive(retryAtMs: now + backoff.next().milliseconds, backoff: backoff)
    case .reattach(var reconnection):
      reconnection.retryAtMs = nil  // set once the port of this try is released
      phase = .detached(reconnection)
      for case .caller(let id, _, _, _) in sent.values { actions.append(.answer(id, .failure(error))) }
      sent.removeAll()
      _ = endpoint.restart(nonce: endpoint.nonce, firstSequence: endpoint.sender.nextSequence)
      info = nil
      idleProbeAtMs = nil
      actions.append(.abandonTransport)
    }
  }
}
