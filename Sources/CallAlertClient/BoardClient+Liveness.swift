import CallAlertProtocol
import CallAlertRuntime
import CallAlertTransport

/// Liveness: keepalives that notice a board which stays plugged in but stops answering, the handshakes
/// that bring it back, and the report of a line that carries only noise. See
/// ``BoardClientOptions/Liveness``.
extension BoardClient {
  /// Starts the idle probes: a PING every ``BoardClientOptions/Liveness/idleProbe`` from now on. The probe's
  /// time is one of the link's deadlines (see ``reschedule()``): an idle daemon's keepalives ring the event
  /// loop's timer, not a sleeping task on the pool's timer thread, which woke two threads of the pool for each.
  func startIdleProbe() {
    guard nextIdleProbeMs == nil, !isClosed, let period = options.liveness?.idleProbe else { return }
    nextIdleProbeMs = nowMs + DeadlineTimer<C>.milliseconds(period)
    reschedule()
  }

  /// Sends the idle PING when its time has come, and sets the next one a period later; a PING still waiting
  /// for its answer is not doubled.
  func probeIfDue() {
    guard let due = nextIdleProbeMs, nowMs >= due, !isClosed, let period = options.liveness?.idleProbe else { return }
    nextIdleProbeMs = nowMs + DeadlineTimer<C>.milliseconds(period)
    guard idleProbe == nil else { return }
    // With the loop as its preferred executor: an isolated task of an actor on a custom executor still had its
    // PING's answer resumed through a thread of the pool (one wake-up of the pool per probe).
    idleProbe = Task(executorPreference: DescriptorEventLoop.shared) { [weak self] in await self?.runIdleProbe() }
  }

  private func runIdleProbe() async {
    _ = await probeIdleBoard()
    idleProbe = nil
  }

  /// PINGs a board that has a session and plays nothing (lease renewals watch a playing one); false once
  /// the client is closed.
  func probeIdleBoard() async -> Bool {
    guard !isClosed else { return false }
    guard !lease.isPlaying, !isUnresponsive, !needsHandshake, handshake == nil, transport != nil else {
      return true
    }
    if case .failure(let error) = await exchange(.ping([])) { keepaliveFailed("PING", error) }
    return true
  }

  /// A keepalive went unanswered: the board is marked unresponsive, and HELLO is sent until it answers.
  func keepaliveFailed(_ name: String, _ error: BoardClientError) {
    guard case .timeout = error, let liveness = options.liveness, !isUnresponsive, !isClosed, transport != nil
    else { return }
    isUnresponsive = true
    needsHandshake = true
    lease.forgetAll()  // the board stops at its lease
    eventSink.yield(.unresponsive(reason: "\(name) got no answer after every retry"))
    let clock = self.clock
    probing = Task { [weak self] in
      var backoff = Backoff(initial: liveness.retryDelay, maximum: liveness.maxRetryDelay)
      while true {
        guard let self, await !self.answersAgain() else { return }
        do { try await clock.sleep(for: backoff.next(), tolerance: nil) } catch { return }
      }
    }
  }

  /// One handshake with an unresponsive board; true when it answered (or there is nothing left to probe).
  func answersAgain() async -> Bool {
    guard isUnresponsive, !isClosed, transport != nil else {
      probing = nil
      return true
    }
    do throws(BoardClientError) {
      let info = try await ensureSession()
      let status = try await status()
      guard isUnresponsive else { return true }
      isUnresponsive = false
      probing = nil
      eventSink.yield(.responsive(info, status))
      return true
    } catch {
      return false
    }
  }

  /// Bytes received since the last valid frame (every byte received, when none was ever valid): a
  /// handshake that failed on a line carrying bytes is a wrong baud rate or another device, not silence.
  public var unreadableBytes: Int { noise.sinceFrame }

  /// Counts bytes that brought no valid frame, and reports a line that carries nothing else.
  func noteNoise(_ count: Int, framesDecoded: Bool) {
    guard !framesDecoded else {
      noise = (0, 0)
      return
    }
    noise.sinceFrame += count
    noise.unreported += count
    guard noise.sinceFrame >= options.noiseThreshold, noise.unreported >= options.noiseThreshold else { return }
    eventSink.yield(.unreadableLine(bytes: noise.unreported))
    noise.unreported = 0
  }
}
