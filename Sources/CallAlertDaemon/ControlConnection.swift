import CallAlertTransport
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a control connection's read brought. Declared outside the connection, which is generic over its clock,
/// so that its layout is known when compiled, not looked up at run time on each read.
enum ControlConnectionRead: Equatable {
  /// Bytes, at most one read's worth.
  case bytes([UInt8])
  /// The client will send no more: it closed or half-closed (`shutdown(SHUT_WR)`), or the socket failed.
  case end
}

/// Why the daemon closed a control connection.
enum ControlConnectionClose: Equatable, Sendable {
  /// The exchange is over (the client sent its last line and got its answers, or went away).
  case finished
  /// The client did not read its answers and its output buffer filled up.
  case outputFull
  /// The client was silent for the idle timeout.
  case idle
}

/// One client of the control socket, with bounded memory whatever the client does.
///
/// Reading is on demand: the socket is read only when the server asks for the next chunk (``receive()``), so a
/// client that sends faster than the daemon answers fills its own kernel buffer and blocks, instead of filling
/// the daemon's memory (backpressure). Answers go out through a buffer of at most `outputLimit` unsent bytes; a
/// client that keeps sending but never reads overflows it and is disconnected. A client that neither sends
/// nor reads for the idle timeout (measured on the injected clock) is disconnected too, by the server's
/// ``ControlIdleSweeper``.
///
/// Readiness comes from the process's one event loop (a one-shot ``DescriptorWatch``, armed only while a read or
/// a write waits). The connection is isolated to the loop (``EventLoopActor``), where the watch reports and
/// where the server's tasks run, so that a request is read, answered and written without a thread hand-off;
/// the descriptor is closed there, after the watch is cancelled.
@EventLoopActor
final class ControlConnection<C: Clock<Duration>> {
  /// What a read brought.
  typealias Received = ControlConnectionRead
  /// Why the daemon closed a connection.
  typealias CloseReason = ControlConnectionClose

  /// The name in logs and error lines, such as `socket#3`.
  let name: String
  private let descriptor: CInt
  private let outputLimit: Int
  private let clock: C
  private let onClose: @EventLoopActor (CloseReason) -> Void

  private var watch: DescriptorWatch?  // set once in init (its handler needs `self`)
  private var isOpen = true
  private var writeArmed = false  // output waits for room
  private var readWaiter: CheckedContinuation<Received, Never>?
  private var drainWaiters: [CheckedContinuation<Void, Never>] = []
  private var output: [UInt8] = []
  private var outputOffset = 0  // bytes of `output` already sent
  private var lastActivity: C.Instant
  private var busy = false

  /// Takes ownership of `descriptor`, a connected, non-blocking stream socket.
  init(
    taking descriptor: CInt, name: String, outputLimit: Int, clock: C,
    onClose: @escaping @EventLoopActor (CloseReason) -> Void
  ) {
    self.descriptor = descriptor
    self.name = name
    self.outputLimit = outputLimit
    self.clock = clock
    self.onClose = onClose
    lastActivity = clock.now
    watch = DescriptorWatch(FileDescriptor(rawValue: descriptor)) { [weak self] events in
      EventLoopActor.assumeIsolated { self?.ready(events) }  // the watch reports on the loop's thread
    }
  }

  // MARK: - Reading

  /// The next bytes from the client, waiting (without a thread) until some arrive; reads nothing before asked.
  func receive() async -> Received {
    await withCheckedContinuation { (waiter: CheckedContinuation<Received, Never>) in startReceiving(waiter) }
  }

  private func startReceiving(_ waiter: CheckedContinuation<Received, Never>) {
    guard isOpen else { return waiter.resume(returning: .end) }
    if let received = readOnce() { return waiter.resume(returning: received) }
    readWaiter = waiter
    arm()
  }

  /// A report from the event loop, on its thread: whatever waits is served, then the watch is armed again for
  /// what still waits.
  private func ready(_ events: DescriptorEvents) {
    guard isOpen else { return }  // a report handed over just before the close
    if let waiter = readWaiter, let received = readOnce() {
      readWaiter = nil
      waiter.resume(returning: received)
    }
    if isOpen, writeArmed { flush() }
    if isOpen { arm() }
  }

  /// Asks the event loop for one report while a read or a write waits.
  private func arm() {
    do {
      try watch?.arm(readable: readWaiter != nil, writable: writeArmed)
    } catch {
      end(.finished)  // epoll refused the socket: nothing can be served on it
    }
  }

  /// One read(2): bytes, the end, or nil when nothing is there yet.
  private func readOnce() -> Received? {
    while true {
      let count = ControlReadScratch.buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count > 0 {
        lastActivity = clock.now
        return .bytes(Array(ControlReadScratch.buffer[..<count]))
      }
      if count == 0 { return .end }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return nil
      default: return .end  // ECONNRESET and the like: nothing more will come
      }
    }
  }

  // MARK: - Writing

  /// Queues `bytes` to be sent; false when the connection is closed, or closes now because the client has
  /// left more than the output limit unread.
  func send(_ bytes: [UInt8]) -> Bool {
    enqueue(bytes)
  }

  /// Returns once every queued byte is sent, or the connection is closed.
  func drain() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      if !isOpen || outputOffset == output.count {
        waiter.resume()
      } else {
        drainWaiters.append(waiter)
      }
    }
  }

  private func enqueue(_ bytes: [UInt8]) -> Bool {
    guard isOpen else { return false }
    let unsent = output.count - outputOffset
    // One answer always fits, however long; answers piling up behind an unread one do not.
    if unsent > 0, unsent + bytes.count > outputLimit {
      end(.outputFull)
      return false
    }
    if outputOffset > 0 {
      output.removeFirst(outputOffset)
      outputOffset = 0
    }
    output.append(contentsOf: bytes)
    flush()
    return isOpen
  }

  private func flush() {
    while isOpen, outputOffset < output.count {
      let sent = output.withUnsafeBytes { buffer in
        systemSend(descriptor, buffer.baseAddress! + outputOffset, buffer.count - outputOffset)
      }
      if sent > 0 {
        outputOffset += sent
        lastActivity = clock.now
        continue
      }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK:
        if !writeArmed {
          writeArmed = true
          arm()
        }
        return
      default: return end(.finished)  // EPIPE, ECONNRESET: the client is gone
      }
    }
    guard isOpen else { return }
    output = []
    outputOffset = 0
    writeArmed = false  // a report already asked for finds nothing to send
    for waiter in drainWaiters { waiter.resume() }
    drainWaiters.removeAll()
  }

  // MARK: - Idle timeout and closing

  /// Marks the connection as working on a request, which is not idleness; every change counts as activity.
  func setBusy(_ isBusy: Bool) {
    busy = isBusy
    lastActivity = clock.now
  }

  /// When the connection will have been idle for `timeout`: its last activity plus the timeout, or a whole
  /// timeout from now while a request is being answered; nil once closed.
  func idleDeadline(timeout: Duration) -> C.Instant? {
    guard isOpen else { return nil }
    return busy ? clock.now.advanced(by: timeout) : lastActivity.advanced(by: timeout)
  }

  /// Tells the client why and closes the connection, idle for `timeout`.
  func closeIdle(timeout: Duration) {
    guard isOpen else { return }
    let line = Array(#"{"ok":false,"error":"closing a connection idle for \#(timeout)"}"#.utf8) + [0x0A]
    _ = line.withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count) }
    end(.idle)
  }

  /// Closes the connection; waiting reads end and waiting drains return. Calling it again does nothing.
  func close() {
    end(.finished)
  }

  private func end(_ reason: CloseReason) {
    guard isOpen else { return }
    isOpen = false
    readWaiter?.resume(returning: .end)
    readWaiter = nil
    for waiter in drainWaiters { waiter.resume() }
    drainWaiters.removeAll()
    output = []
    // The watch first, then the descriptor: no report can touch a closed (or reused) descriptor number.
    watch?.cancel()
    _ = systemClose(descriptor)
    onClose(reason)
  }
}

/// send(2) that never raises SIGPIPE: a client that went away makes it fail with EPIPE instead of killing the
/// daemon.
func systemSend(_ descriptor: CInt, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
  #if canImport(Glibc)
    Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
  #else
    Darwin.send(descriptor, bytes, count, 0)  // Darwin: SO_NOSIGPIPE is set on the socket at accept
  #endif
}

/// close(2), named apart from the types' own `close()`.
func systemClose(_ descriptor: CInt) -> CInt {
  #if canImport(Glibc)
    Glibc.close(descriptor)
  #else
    Darwin.close(descriptor)
  #endif
}

/// The one buffer every connection reads into before copying out what arrived: connections are isolated to the
/// event loop, so one read happens at a time, and a connection that asks one question does not allocate and
/// zero a buffer of its own.
@EventLoopActor
enum ControlReadScratch {
  static var buffer = [UInt8](repeating: 0, count: 64 * 1024)
}
