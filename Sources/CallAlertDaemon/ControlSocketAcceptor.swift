import CallAlertControl
import CallAlertTransport
import Logging
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Accepts the control socket's clients, within the limits: a peer the policy refuses, a client beyond the
/// connection limit, or one that would take a descriptor kept for the boards gets one error line and is
/// closed. When the system is out of descriptors, accepting pauses (doubling pauses, timed on `clock`)
/// instead of retrying at once: the listening socket stays readable, so retrying would spin a core.
///
/// The listening socket is watched by the process's event loop (a one-shot ``DescriptorWatch``, armed again
/// after each burst of accepts and not while paused). The acceptor is isolated to the loop
/// (``EventLoopActor``), where the watch reports; the socket is closed there, after the watch is cancelled.
@EventLoopActor
final class ControlSocketAcceptor<C: Clock<Duration>> {
  private let descriptor: CInt
  private let limits: ControlSocketLimits
  private let connections: ConnectionBudget
  private let policy: PeerPolicy
  private let logger: Logger
  private let accept: @Sendable (CInt) -> CInt
  private let clock: C
  private let accepted: AsyncStream<(CInt, Int)>.Continuation
  private let descriptorCeiling: Int

  private var watch: DescriptorWatch?  // set once in init (its handler needs `self`)
  private var paused = false
  private var running = true
  private var backoff: Duration?
  private var resumeTask: Task<Void, Never>?
  private var active = 0
  private var count = 0
  private var refusals = 0

  /// Starts accepting on `descriptor`, a listening non-blocking socket it now owns; clients (descriptor and
  /// number) are yielded on `accepted`, which finishes after ``stop()``.
  init(
    descriptor: CInt, limits: ControlSocketLimits, connections: ConnectionBudget, policy: PeerPolicy, logger: Logger,
    accept: @escaping @Sendable (CInt) -> CInt, clock: C, accepted: AsyncStream<(CInt, Int)>.Continuation
  ) {
    self.descriptor = descriptor
    self.limits = limits
    self.connections = connections
    self.policy = policy
    self.logger = logger
    self.accept = accept
    self.clock = clock
    self.accepted = accepted
    var limit = rlimit()
    // rlim_cur is unsigned; "unlimited" is its largest value, which clamps to Int.max.
    let soft = getrlimit(resourceNoFile, &limit) == 0 ? Int(clamping: limit.rlim_cur) : Int.max
    descriptorCeiling = soft == Int.max ? Int.max : soft - limits.reservedDescriptors
    watch = DescriptorWatch(FileDescriptor(rawValue: descriptor)) { [weak self] _ in
      EventLoopActor.assumeIsolated { self?.acceptAll() }  // the watch reports on the loop's thread
    }
    armWatch()
  }

  /// Stops accepting and closes the listening socket.
  func stop() {
    guard running else { return }
    running = false
    resumeTask?.cancel()
    // The watch first, then the socket: no report can reach a closed (or reused) descriptor number.
    watch?.cancel()
    _ = systemClose(descriptor)
    accepted.finish()
  }

  /// Asks the event loop for the next client; on failure (not expected for a listening socket) accepting
  /// pauses and tries again later, as when accept(2) fails.
  private func armWatch() {
    do {
      try watch?.arm(readable: true, writable: false)
    } catch {
      pause(after: error.rawValue)
    }
  }

  /// A served client has gone: its slot is free.
  func connectionDidClose() {
    active -= 1
    connections.give(.controlSocket)
  }

  private func acceptAll() {
    while running, !paused {
      let client = accept(descriptor)
      if client < 0 {
        let number = errno
        switch number {
        case EINTR, ECONNABORTED: continue
        case EAGAIN, EWOULDBLOCK:
          backoff = nil
          armWatch()  // one-shot: the next client needs a new report
        default: pause(after: number)
        }
        return
      }
      backoff = nil
      admit(client)
    }
  }

  private func admit(_ client: CInt) {
    let peer = PeerCredentials.of(client)
    if !policy.admits(peer) {
      return refuse(client, policy.refusal(of: peer), log: "peer \(peer.map { "uid \($0.userID)" } ?? "unknown")")
    }
    if Int(client) >= descriptorCeiling {
      return refuse(
        client, "the daemon is short of file descriptors; try again later", log: "descriptor limit near")
    }
    if active >= limits.maxConnections {
      return refuse(
        client, "too many connections (the limit is \(limits.maxConnections)); try again later",
        log: "connection limit")
    }
    if !connections.take(.controlSocket) {
      return refuse(
        client, "the daemon holds the most connections it takes (\(connections.total)); try again later",
        log: "shared connection budget")
    }
    active += 1
    count += 1
    accepted.yield((client, count))
  }

  /// Sends one error line (best effort: the socket's buffer is empty, so it fits) and closes.
  private func refuse(_ client: CInt, _ message: String, log: String) {
    let line = Array((ControlResponse.failure(message).line + "\n").utf8)
    _ = line.withUnsafeBytes { systemSend(client, $0.baseAddress, $0.count) }
    _ = shutdown(client, Int32(SHUT_WR))
    _ = systemClose(client)
    refusals += 1
    // Logged at first and then rarely: a flood of refused clients must not flood the log.
    if refusals <= 10 || refusals % 1000 == 0 {
      logger.warning("control socket: refused a client (\(log)); \(refusals) refused so far")
    }
  }

  private func pause(after number: Int32) {
    let delay = backoff.map { min($0 * 2, limits.acceptBackoff.upperBound) } ?? limits.acceptBackoff.lowerBound
    if backoff == nil {
      logger.warning(
        "control socket: accept failed (\(String(cString: strerror(number)))); pausing, at first for \(delay)")
    }
    backoff = delay
    paused = true  // the watch is not armed again until the pause ends
    let clock = clock
    resumeTask = Task { [weak self] in
      do { try await clock.sleep(for: delay) } catch { return }
      self?.resumeAccepting()
    }
  }

  /// Ends a pause in accepting (unless stopped meanwhile).
  private func resumeAccepting() {
    guard running, paused else { return }
    paused = false
    acceptAll()  // takes the clients that queued up during the pause, then arms the watch again
  }
}

/// accept(2) of a new client, non-blocking and close-on-exec from the start.
func systemAccept(_ listening: CInt) -> CInt {
  acceptNonBlockingClient(listening)
}

#if canImport(Glibc)
  private let resourceNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
  private let resourceNoFile = RLIMIT_NOFILE
#endif
