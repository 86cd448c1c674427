import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The one event-driven I/O path for every descriptor-backed transport: real serial ports, pseudo-terminal
/// slaves and masters, sockets, or any other non-blocking descriptor that epoll(7) can watch.
///
/// The channel owns the descriptor. The process's ``DescriptorEventLoop`` (one thread in epoll_wait) wakes it
/// only when the kernel reports the descriptor readable, writable while a write waits, or hung up; there is no
/// timer and no polling loop, so an idle connection costs no CPU and no wake-ups. Received bytes are read on
/// the loop's thread and delivered on ``incoming`` in the chunks read(2) returned.
///
/// Writes go out in order and whole, from the writer's own thread: a write that finds nothing queued calls
/// write(2) at once and returns without suspending when the kernel took every byte (the common case: a frame
/// is far smaller than a terminal's or socket's buffer). Only when the kernel's buffer is full (EAGAIN) is the
/// rest queued; the channel then asks the loop to report room, and the loop's thread writes the queue out and
/// resumes the waiting writers. It never sleeps.
///
/// Hang-up detection: a readable descriptor that reads 0 bytes, a hang-up or error event with nothing to read,
/// or a read or write that fails with EIO, ENXIO, EPIPE or ECONNRESET (a pseudo-terminal or socket whose other
/// side closed, an unplugged USB device), ends ``incoming`` by throwing ``TransportError`` with code
/// ``TransportError/Code/disconnected``, after any bytes that arrived before it. The descriptor is then
/// released at once: holding a dead USB tty open would make the board come back under a new name (`ttyACM1`)
/// when it is plugged in again.
///
/// Lifetime of the descriptor, the rules that keep the event loop and close(2) apart:
/// - Every use of the descriptor (read, write, the epoll registration's changes) happens under the channel's
///   lock while the channel is open.
/// - Ending (``close()``, a hang-up or a failure) happens once, under the same lock: it deletes the epoll
///   registration, runs `beforeClose`, and closes the descriptor before the lock is let go. So nothing reads or
///   writes the descriptor after it is closed, and when its number is reused by the next open, no event meant
///   for this channel can reach the new one (events carry the channel's registration number, never reused).
/// - Nothing else closes the descriptor.
///
/// While open, the channel is held by the event loop, like a NIO channel on its event loop; ending lets it go.
/// ``incoming`` finishes only after the descriptor is closed, so when a reader sees the stream end the port can
/// be opened again straight away (the exclusive lock is gone). Cancelling the task that iterates ``incoming``
/// closes the channel, since nobody would read again.
///
/// Sockets: a write to a socket whose peer closed raises SIGPIPE; a process that hands sockets to a channel
/// ignores SIGPIPE (as the daemon does at start), and the channel then sees EPIPE and reports a hang-up.
///
/// Buffering: received chunks wait in ``incoming`` without bound. At serial speeds (11.5 kB/s at 115 200 baud)
/// the frame decoder above is far faster than the line, so the simplicity is worth it.
public final class DescriptorChannel: ByteTransport, Sendable {
  /// The name used in errors, such as `/dev/ttyACM0` or `/dev/pts/3`.
  public let name: String
  /// The bytes received, in the chunks read(2) returned. Iterate it from one task only.
  public let incoming: AsyncThrowingStream<[UInt8], any Error>

  private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
  private let descriptor: FileDescriptor
  private let registration: UInt64  // the event loop's number for this channel
  private let loop: DescriptorEventLoop
  private let beforeClose: (@Sendable (FileDescriptor) -> Void)?
  private let state: Mutex<State>

  private struct State: ~Copyable {
    var phase = Phase.open
    var endError: TransportError?  // why `incoming` ends; nil after a local close
    var watchingForRoom = false  // the loop reports writability: a write waits in `pendingWrites`
    var pendingWrites: [PendingWrite] = []
    var nextTicket: UInt64 = 0
    var finishedWrites: [UInt64: Result<Void, TransportError>] = [:]  // done before their writer waited
    var releaseWaiters: [CheckedContinuation<Void, Never>] = []
    var readBuffer = [UInt8](repeating: 0, count: DescriptorChannel.readChunkSize)
    var wouldBlockObserver: (@Sendable () -> Void)?
    var wouldBlockEvents = 0
    /// Bytes handed over in this turn of a coalescing loop, to go out when it ends (in order, before any
    /// bytes handed over after them).
    var turnOutput: [UInt8] = []
    var turnOutputScheduled = false
  }

  private enum Phase {
    case open
    case released  // descriptor closed, `incoming` finished (or finishing, just after the lock is let go)
  }

  private typealias WriteCompletion = CheckedContinuation<Result<Void, TransportError>, Never>

  private struct PendingWrite {
    var bytes: [UInt8]
    var offset: Int  // how many bytes are already out
    let ticket: UInt64
    var completion: WriteCompletion?  // nil until the writer has suspended
    /// Handed over by ``sendWithoutWaiting(_:)``: nobody waits for its result.
    var detached = false
  }

  /// What to do once the lock is let go. Nothing that reaches into the stream or a task runs under the lock:
  /// yielding resumes the reader's task under the runtime's own task lock, while a task being cancelled holds
  /// that lock and runs the stream's termination handler, which closes the channel and takes ours (the two
  /// orders deadlocked, seen once in the conformance suite).
  private struct Aftermath {
    var received: [[UInt8]] = []
    var completions: [(WriteCompletion, Result<Void, TransportError>)] = []
    var finish: Result<Void, TransportError>?
    var releaseWaiters: [CheckedContinuation<Void, Never>] = []
    var wouldBlockObserver: (@Sendable () -> Void)?
  }

  /// The most bytes one read(2) asks for; a pseudo-terminal hands over at most 4 KiB at a time anyway.
  private static let readChunkSize = 16 * 1024
  /// Reads per readiness event before the loop serves other channels; level-triggered epoll reports the
  /// rest at once.
  private static let readsPerEvent = 4

  /// Takes ownership of `descriptor` and starts reading from it.
  ///
  /// The channel makes the descriptor non-blocking and close-on-exec. A terminal should already be set up
  /// so that a 0-byte read means a hang-up (VMIN = 1); CallAlertSerial's openers do that. On failure the
  /// descriptor is closed, so ownership passes to the channel whatever happens.
  ///
  /// - Parameters:
  ///   - descriptor: An open descriptor, for example a pseudo-terminal master or one end of a socket pair.
  ///   - name: The port name used in errors.
  ///   - beforeClose: Runs just before the descriptor is closed, under the channel's lock, when the event loop
  ///     no longer watches it: the place to undo what the opener set on the device (a serial port's TIOCEXCL
  ///     mark). It must not close the descriptor, nor use the channel.
  ///   - loop: The event loop that watches the descriptor (and delivers ``incoming``), the process's shared
  ///     one unless told.
  public init(
    taking descriptor: FileDescriptor, name: String, beforeClose: (@Sendable (FileDescriptor) -> Void)? = nil,
    loop: DescriptorEventLoop = .shared
  ) throws(TransportError) {
    let flags = fcntl(descriptor.rawValue, F_GETFL)
    guard flags >= 0, fcntl(descriptor.rawValue, F_SETFL, flags | O_NONBLOCK) == 0,
      fcntl(descriptor.rawValue, F_SETFD, FD_CLOEXEC) == 0
    else {
      let error = TransportError.system("fcntl", port: name, errno: Errno(rawValue: errno))
      try? descriptor.close()
      throw error
    }
    self.descriptor = descriptor
    self.name = name
    self.beforeClose = beforeClose
    self.loop = loop
    registration = loop.makeID()
    state = Mutex(State())
    (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    continuation.onTermination = { [weak self] termination in
      // Only a consumer that stopped listening; our own finish reports `.finished`.
      if case .cancelled = termination { self?.close() }
    }
    do throws(Errno) {
      try loop.add(
        id: registration, descriptor: descriptor, interest: .init(readable: true, writable: false),
        handler: { [self] events in handle(events) })
    } catch {
      state.withLock { $0.phase = .released }
      try? descriptor.close()
      continuation.finish()
      throw .system("epoll_ctl", port: name, errno: error)
    }
  }

  /// Sends all of `bytes`, suspending (without blocking a thread) only while the kernel's output buffer is full.
  ///
  /// Writes from concurrent callers go out one after another, never interleaved. A write that has started is
  /// not abandoned on task cancellation, because half a frame on the wire would corrupt the next one;
  /// ``close()`` fails writes that are still waiting.
  ///
  /// - Throws: ``TransportError`` with code ``TransportError/Code/closed`` after ``close()``,
  ///   ``TransportError/Code/disconnected`` after a hang-up.
  ///
  /// The corresponding C function is `write`.
  public func write(_ bytes: [UInt8]) async throws(TransportError) {
    var aftermath = Aftermath()
    let attempt = state.withLock { hand(bytes, detached: false, state: &$0, aftermath: &aftermath) }
    run(aftermath)
    switch attempt {
    case .done: return
    case .failed(let error): throw error
    case .queued(let ticket):
      let result = await withCheckedContinuation { (completion: WriteCompletion) in
        let early: Result<Void, TransportError>? = state.withLock { state in
          if let result = state.finishedWrites.removeValue(forKey: ticket) { return result }
          guard let index = state.pendingWrites.firstIndex(where: { $0.ticket == ticket }) else {
            return .failure(state.endError ?? .closed(name))  // not reached: an ended write is in finishedWrites
          }
          state.pendingWrites[index].completion = completion
          return nil
        }
        if let early { completion.resume(returning: early) }
      }
      try result.get()
    }
  }

  private enum WriteAttempt {
    case done
    case queued(UInt64)
    case failed(TransportError)
  }

  /// Writes `bytes` now, from the caller's thread, when nothing is queued and the kernel takes them; else
  /// queues them behind what waits (the loop writes them out when there is room). False only once closed.
  ///
  /// On a loop that coalesces sends (``DescriptorEventLoop/init(name:coalescingSends:)``), bytes handed over
  /// on the loop's thread wait for the end of the loop's turn, and go out then in one write with the others
  /// handed over in that turn.
  public func sendWithoutWaiting(_ bytes: [UInt8]) -> Bool {
    if loop.coalescesSends, loop.isCurrent { return sendAtEndOfTurn(bytes) }
    var aftermath = Aftermath()
    let attempt = state.withLock { hand(bytes, detached: true, state: &$0, aftermath: &aftermath) }
    run(aftermath)
    switch attempt {
    case .done, .queued: return true
    case .failed: return aftermath.finish != nil  // the line failed now: `incoming`'s end reports it
    }
  }

  /// Keeps `bytes` for the end of the loop's turn; the first of a turn asks the loop to send them then.
  private func sendAtEndOfTurn(_ bytes: [UInt8]) -> Bool {
    let schedule = state.withLock { state -> Bool? in
      guard state.phase == .open else { return nil }
      state.turnOutput += bytes
      defer { state.turnOutputScheduled = true }
      return !state.turnOutputScheduled
    }
    guard let schedule else { return false }
    if schedule { loop.atEndOfTurn { [self] in sendTurnOutput() } }
    return true
  }

  /// Sends what the turn gathered (unless a write in the turn took it along first).
  private func sendTurnOutput() {
    var aftermath = Aftermath()
    state.withLock { state in
      state.turnOutputScheduled = false
      _ = hand([], detached: true, state: &state, aftermath: &aftermath)
    }
    run(aftermath)
  }

  /// Writes `bytes` now when nothing is queued and the kernel takes them all, in the caller's thread; else
  /// queues the rest behind what waits and asks the loop to report room. A failure ends the channel. Bytes
  /// kept for the end of the turn go first.
  private func hand(
    _ bytes: [UInt8], detached: Bool, state: inout State, aftermath: inout Aftermath
  ) -> WriteAttempt {
    guard state.phase == .open else { return .failed(state.endError ?? .closed(name)) }
    var bytes = bytes
    if !state.turnOutput.isEmpty {
      bytes = state.turnOutput + bytes
      state.turnOutput.removeAll()
    }
    guard !bytes.isEmpty else { return .done }
    var offset = 0
    if state.pendingWrites.isEmpty {
      // Nothing queued: straight to the kernel, in the caller's thread.
      switch writeOut(bytes, from: &offset) {
      case .done: return .done
      case .blocked: break
      case .failed(let error):
        end(error, state: &state, aftermath: &aftermath)
        return .failed(error)
      }
    }
    let ticket = state.nextTicket
    state.nextTicket += 1
    state.pendingWrites.append(
      PendingWrite(bytes: bytes, offset: offset, ticket: ticket, completion: nil, detached: detached))
    if !state.watchingForRoom { waitForRoom(state: &state, aftermath: &aftermath) }
    return .queued(ticket)
  }

  /// Closes the channel: stops reading, fails waiting writes and closes the descriptor, before it returns.
  /// ``incoming`` then finishes without an error. Calling it again does nothing.
  ///
  /// The corresponding C function is `close`.
  public func close() {
    var aftermath = Aftermath()
    state.withLock { end(nil, state: &$0, aftermath: &aftermath) }
    run(aftermath)
  }

  /// Returns once the descriptor is closed, after ``close()`` or a hang-up; the port can then be opened again.
  public func waitUntilReleased() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let released = state.withLock { state in
        if state.phase == .released { return true }
        state.releaseWaiters.append(waiter)
        return false
      }
      if released { waiter.resume() }
    }
  }

  // MARK: - Test hooks

  /// Calls `observer` each time a write finds the kernel's buffer full (EAGAIN), so a test can wait for that
  /// moment instead of sleeping.
  package func observeWouldBlock(_ observer: @escaping @Sendable () -> Void) {
    state.withLock { $0.wouldBlockObserver = observer }
  }

  /// How many times a write found the kernel's buffer full.
  package var wouldBlockCount: Int {
    state.withLock { $0.wouldBlockEvents }
  }

  /// The channel's state in words, for a test that found it stuck.
  package var stateDescription: String {
    state.withLock { state in
      "\(name): \(state.phase), \(state.pendingWrites.count) writes waiting, "
        + "\(state.watchingForRoom ? "watching for room" : "not watching for room"), fd \(descriptor.rawValue)"
    }
  }

  // MARK: - Events

  /// What the event loop saw, on its thread.
  func handle(_ events: DescriptorEvents) {
    var aftermath = Aftermath()
    state.withLock { state in
      guard state.phase == .open else { return }
      if events.readable || events.hungUp { readAvailable(events, state: &state, aftermath: &aftermath) }
      if state.phase == .open, events.writable || (events.hungUp && state.watchingForRoom) {
        flushWrites(state: &state, aftermath: &aftermath)
      }
    }
    run(aftermath)
  }

  // MARK: - Reading

  /// Reads what is waiting, a few chunks at most (level-triggered epoll reports the rest at once).
  ///
  /// A read that returns less than it asked for took everything the kernel held, so the channel does not
  /// ask again only to hear EAGAIN: that second read was half the system calls of a small frame's arrival
  /// (a PLAY, its acknowledgement). Bytes that land just after it make epoll report the descriptor again.
  private func readAvailable(_ events: DescriptorEvents, state: inout State, aftermath: inout Aftermath) {
    for attempt in 0..<Self.readsPerEvent {
      let result = state.readBuffer.withUnsafeMutableBytes { buffer in
        Result { () throws(Errno) in try descriptor.readRetryingInterrupts(into: buffer) }
      }
      switch result {
      case .success(let count) where count > 0:
        aftermath.received.append(Array(state.readBuffer[..<count]))
        if count < state.readBuffer.count { return }
      case .success:
        return end(.disconnected(name, function: "read"), state: &state, aftermath: &aftermath)
      case .failure(.wouldBlock), .failure(.resourceTemporarilyUnavailable):
        // Nothing to read: after a hang-up or error event with nothing read, that is the end of the line (a
        // pseudo-terminal whose slave closed reports it this way on some kernels).
        if attempt == 0, events.hungUp {
          end(.disconnected(name, function: "epoll_wait"), state: &state, aftermath: &aftermath)
        }
        return
      case .failure(let number) where Self.meansHangUp(number):
        return end(.disconnected(name, function: "read", errno: number), state: &state, aftermath: &aftermath)
      case .failure(let number):
        return end(.system("read", port: name, errno: number), state: &state, aftermath: &aftermath)
      }
    }
  }

  /// Whether a read or write error means the far end went away: EIO or ENXIO (a pseudo-terminal's other side,
  /// an unplugged USB device), EPIPE or ECONNRESET (a socket whose peer closed, with bytes still unread).
  private static func meansHangUp(_ number: Errno) -> Bool {
    number == .ioError || number == .noSuchAddressOrDevice || number == .brokenPipe || number == .connectionReset
  }

  // MARK: - Writing

  private enum WriteOutcome {
    case done
    case blocked
    case failed(TransportError)
  }

  /// write(2) until every byte from `offset` is out or the kernel's buffer is full. Under the lock.
  private func writeOut(_ bytes: [UInt8], from offset: inout Int) -> WriteOutcome {
    while offset < bytes.count {
      let start = offset
      let result = bytes.withUnsafeBytes { buffer in
        Result { () throws(Errno) in
          try descriptor.writeRetryingInterrupts(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
      }
      switch result {
      case .success(let written) where written > 0:
        offset += written
      case .success, .failure(.wouldBlock), .failure(.resourceTemporarilyUnavailable):
        return .blocked
      case .failure(let number) where Self.meansHangUp(number):
        return .failed(.disconnected(name, function: "write", errno: number))
      case .failure(let number):
        return .failed(.system("write", port: name, errno: number))
      }
    }
    return .done
  }

  /// Writes queued bytes until they are all out or the kernel's buffer is full; on the loop's thread.
  private func flushWrites(state: inout State, aftermath: inout Aftermath) {
    while !state.pendingWrites.isEmpty {
      switch writeOut(state.pendingWrites[0].bytes, from: &state.pendingWrites[0].offset) {
      case .done:
        complete(state.pendingWrites.removeFirst(), with: .success(()), state: &state, aftermath: &aftermath)
      case .blocked:
        return
      case .failed(let error):
        return end(error, state: &state, aftermath: &aftermath)
      }
    }
    // Everything is out: stop watching for room, or an always-writable descriptor would wake the loop forever.
    state.watchingForRoom = false
    do throws(Errno) {
      try loop.modify(id: registration, descriptor: descriptor, interest: .init(readable: true, writable: false))
    } catch {
      end(.system("epoll_ctl", port: name, errno: error), state: &state, aftermath: &aftermath)
    }
  }

  private func waitForRoom(state: inout State, aftermath: inout Aftermath) {
    state.wouldBlockEvents += 1
    aftermath.wouldBlockObserver = state.wouldBlockObserver
    state.watchingForRoom = true
    do throws(Errno) {
      try loop.modify(id: registration, descriptor: descriptor, interest: .init(readable: true, writable: true))
    } catch {
      end(.system("epoll_ctl", port: name, errno: error), state: &state, aftermath: &aftermath)
    }
  }

  private func complete(
    _ write: PendingWrite, with result: Result<Void, TransportError>, state: inout State, aftermath: inout Aftermath
  ) {
    if let completion = write.completion {
      aftermath.completions.append((completion, result))
    } else if write.detached {
      return  // nobody waits for it
    } else {
      state.finishedWrites[write.ticket] = result  // its writer has not suspended yet; it finds this when it does
    }
  }

  // MARK: - Closing

  /// Ends the channel after a local close (`error` nil) or a failure, under the lock: fails waiting writes,
  /// deletes the epoll registration and closes the descriptor. The stream finishes once the lock is let go.
  private func end(_ error: TransportError?, state: inout State, aftermath: inout Aftermath) {
    guard state.phase == .open else { return }
    state.phase = .released
    state.endError = error
    let writeError = error ?? .closed(name)
    for write in state.pendingWrites {
      complete(write, with: .failure(writeError), state: &state, aftermath: &aftermath)
    }
    state.pendingWrites.removeAll()
    state.turnOutput.removeAll()
    loop.remove(registration, descriptor: descriptor)
    beforeClose?(descriptor)
    // Errors are not reported: on Linux the descriptor is released even when close(2) fails (EINTR, EIO), so
    // retrying could close an unrelated descriptor that reused the number, and there is nothing else to do.
    try? descriptor.close()
    aftermath.finish = error.map { .failure($0) } ?? .success(())
    aftermath.releaseWaiters = state.releaseWaiters
    state.releaseWaiters.removeAll()
  }

  /// Does what the lock held back, in order: bytes received, the would-block observer, writers' completions,
  /// then the end of the stream, then those waiting for the release. Only the loop's thread reads, so received
  /// chunks are yielded in order; a local close from another thread may finish the stream first, and bytes read
  /// just before it are then dropped, as nobody will read them.
  private func run(_ aftermath: Aftermath) {
    for chunk in aftermath.received {
      continuation.yield(chunk)
    }
    aftermath.wouldBlockObserver?()
    for (completion, result) in aftermath.completions {
      completion.resume(returning: result)
    }
    switch aftermath.finish {
    case .none: break
    case .success: continuation.finish()
    case .failure(let error): continuation.finish(throwing: error)
    }
    for waiter in aftermath.releaseWaiters {
      waiter.resume()
    }
  }
}
