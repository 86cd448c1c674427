import Dispatch
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one event-driven I/O path for every descriptor-backed transport: real serial ports, pseudo-terminal
/// slaves and masters, socket pairs, or any other non-blocking descriptor.
///
/// The channel owns the descriptor. A `DispatchSourceRead` wakes it only when the kernel reports the descriptor
/// readable (or hung up); there is no timer and no polling loop, so an idle connection costs no CPU. Received
/// bytes are delivered on ``incoming`` in the chunks read(2) returned. Writes go out in order and whole: when
/// the kernel's buffer is full (EAGAIN) the channel resumes its `DispatchSourceWrite` and waits for it to report
/// room, never sleeps.
///
/// Hang-up detection: a readable descriptor that reads 0 bytes, or a read or write that fails with EIO, ENXIO,
/// EPIPE or ECONNRESET (a pseudo-terminal or socket whose other side closed, an unplugged USB device), ends
/// ``incoming`` by throwing ``TransportError`` with code ``TransportError/Code/disconnected``, after any bytes
/// that arrived before it. The descriptor is then released at once: holding a dead USB tty open would make the
/// board come back under a new name (`ttyACM1`) when it is plugged in again.
///
/// Lifetime of the descriptor, the rules that keep dispatch and close(2) apart:
/// - Both dispatch sources, one read and one write, are made once, when the channel opens, and live until it
///   ends. The write source is suspended while nothing waits for room and resumed when a write meets EAGAIN;
///   it is never cancelled and re-made per write, so no cancelled-but-not-yet-unregistered source is ever
///   left behind on a descriptor that is still in use.
/// - The write source watches a duplicate of the descriptor (same open file, another number). libdispatch on
///   Linux keeps one epoll registration per descriptor number for all its sources and re-arms it after each
///   event; with a read and a write source on one number, a hang-up under load could leave it disarmed, and
///   the channel waited for ever (the stress test in CallAlertTransportTests found it: rarely with write
///   sources made per write, in about a third of runs of 20 000 pairs with one kept on the same number). One
///   source per number keeps their registrations apart.
/// - Ending (``close()``, a hang-up or a failure) cancels both sources, on the channel's queue, once. Both
///   descriptors are closed only in the cancel handler of the last of the two to run: by then libdispatch has
///   unregistered both, so no source can touch them, and their numbers may be reused at once.
/// - Nothing else closes the descriptor, and nothing reads or writes it after ending began.
///
/// While open, the channel keeps itself alive through its dispatch sources, like a NIO channel on its event
/// loop; ending lets it go. ``incoming`` finishes only after the descriptor is closed, so when a reader sees
/// the stream end the port can be opened again straight away (the exclusive lock is gone). Cancelling the task
/// that iterates ``incoming`` closes the channel, since nobody would read again.
///
/// Sockets: a write to a socket whose peer closed raises SIGPIPE; a process that hands sockets to a channel
/// ignores SIGPIPE (as the daemon does at start), and the channel then sees EPIPE and reports a hang-up.
///
/// Buffering: received chunks wait in ``incoming`` without bound. At serial speeds (11.5 kB/s at 115 200 baud)
/// the frame decoder above is far faster than the line, so the simplicity is worth it.
public final class DescriptorChannel: ByteTransport, @unchecked Sendable {
  // @unchecked: every mutable property below is touched only on `queue`, a serial queue that also runs
  // the dispatch sources' handlers; the `let` properties are immutable and Sendable.

  /// The name used in errors, such as `/dev/ttyACM0` or `/dev/pts/3`.
  public let name: String
  /// The bytes received, in the chunks read(2) returned. Iterate it from one task only.
  public let incoming: AsyncThrowingStream<[UInt8], any Error>

  private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
  private let queue: DispatchQueue
  private let descriptor: FileDescriptor
  private let writeDescriptor: FileDescriptor  // a duplicate of `descriptor`, watched by the write source alone
  private let beforeClose: (@Sendable (FileDescriptor) -> Void)?
  private let readSource: any DispatchSourceRead
  private let writeSource: any DispatchSourceWrite

  // Confined to `queue`.
  private var phase = Phase.open
  private var endError: TransportError?  // why `incoming` ends; nil after a local close
  private var writeSourceRunning = false  // resumed: a write waits for room
  private var liveSources = 2  // sources whose cancel handler has not run yet: the descriptor stays open
  private var pendingWrites: [PendingWrite] = []
  private var releaseWaiters: [CheckedContinuation<Void, Never>] = []
  private var readBuffer = [UInt8](repeating: 0, count: DescriptorChannel.readChunkSize)
  private var wouldBlockObserver: (@Sendable () -> Void)?
  private var wouldBlockEvents = 0

  private enum Phase {
    case open
    case closing  // sources cancelled, waiting for their cancel handlers before close(2)
    case released  // descriptor closed, `incoming` finished
  }

  private typealias WriteCompletion = CheckedContinuation<Result<Void, TransportError>, Never>

  private struct PendingWrite {
    var bytes: [UInt8]
    var offset: Int  // how many bytes are already out
    let completion: WriteCompletion
  }

  /// The most bytes one read(2) asks for; a pseudo-terminal hands over at most 4 KiB at a time anyway.
  private static let readChunkSize = 16 * 1024

  /// Takes ownership of `descriptor` and starts reading from it.
  ///
  /// The channel makes the descriptor non-blocking and close-on-exec. A terminal should already be set up
  /// so that a 0-byte read means a hang-up (VMIN = 1); CallAlertSerial's openers do that. On failure the
  /// descriptor is closed, so ownership passes to the channel whatever happens.
  ///
  /// - Parameters:
  ///   - descriptor: An open descriptor, for example a pseudo-terminal master or one end of a socket pair.
  ///   - name: The port name used in errors.
  ///   - beforeClose: Runs on the channel's queue just before the descriptor is closed, when no dispatch
  ///     source watches it any more: the place to undo what the opener set on the device (a serial port's
  ///     TIOCEXCL mark). It must not close the descriptor.
  public init(
    taking descriptor: FileDescriptor, name: String, beforeClose: (@Sendable (FileDescriptor) -> Void)? = nil
  ) throws(TransportError) {
    let flags = fcntl(descriptor.rawValue, F_GETFL)
    guard flags >= 0, fcntl(descriptor.rawValue, F_SETFL, flags | O_NONBLOCK) == 0,
      fcntl(descriptor.rawValue, F_SETFD, FD_CLOEXEC) == 0
    else {
      let error = TransportError.system("fcntl", port: name, errno: Errno(rawValue: errno))
      try? descriptor.close()
      throw error
    }
    let duplicate = fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
    guard duplicate >= 0 else {
      let error = TransportError.system("fcntl(F_DUPFD_CLOEXEC)", port: name, errno: Errno(rawValue: errno))
      try? descriptor.close()
      throw error
    }
    self.descriptor = descriptor
    writeDescriptor = FileDescriptor(rawValue: duplicate)
    self.name = name
    self.beforeClose = beforeClose
    let queue = DispatchQueue(label: "CallAlertTransport.DescriptorChannel(\(name))")
    self.queue = queue
    readSource = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue)
    writeSource = DispatchSource.makeWriteSource(fileDescriptor: duplicate, queue: queue)
    (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    continuation.onTermination = { [weak self] termination in
      // Only a consumer that stopped listening; our own finish() reports `.finished`. close() hops to the
      // queue asynchronously, so this is safe even when called from inside the queue.
      if case .cancelled = termination { self?.close() }
    }
    queue.sync { startSources() }
  }

  /// Sends all of `bytes`, suspending (without blocking a thread) while the kernel's output buffer is full.
  ///
  /// Writes from concurrent callers are queued and go out one after another, never interleaved. A write that
  /// has started is not abandoned on task cancellation, because half a frame on the wire would corrupt the
  /// next one; ``close()`` fails writes that are still waiting.
  ///
  /// - Throws: ``TransportError`` with code ``TransportError/Code/closed`` after ``close()``,
  ///   ``TransportError/Code/disconnected`` after a hang-up.
  ///
  /// The corresponding C function is `write`.
  public func write(_ bytes: [UInt8]) async throws(TransportError) {
    let result = await withCheckedContinuation { (completion: WriteCompletion) in
      queue.async { self.enqueue(PendingWrite(bytes: bytes, offset: 0, completion: completion)) }
    }
    try result.get()
  }

  /// Closes the channel: stops reading, fails waiting writes and closes the descriptor.
  ///
  /// It returns at once; the descriptor is closed, and ``incoming`` finishes (without an error), as soon as
  /// dispatch has run both sources' cancel handlers (see the lifetime rule above). Await
  /// ``waitUntilReleased()`` to know when that happened. Calling it again does nothing.
  ///
  /// The corresponding C function is `close`.
  public func close() {
    queue.async { self.end(nil) }
  }

  /// Returns once the descriptor is closed, after ``close()`` or a hang-up; the port can then be opened again.
  public func waitUntilReleased() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      queue.async {
        if self.phase == .released {
          waiter.resume()
        } else {
          self.releaseWaiters.append(waiter)
        }
      }
    }
  }

  // MARK: - Test hooks

  /// Calls `observer` on the channel's queue each time a write finds the kernel's buffer full (EAGAIN), so a
  /// test can wait for that moment instead of sleeping.
  package func observeWouldBlock(_ observer: @escaping @Sendable () -> Void) {
    queue.sync { wouldBlockObserver = observer }
  }

  /// How many times a write found the kernel's buffer full.
  package var wouldBlockCount: Int {
    queue.sync { wouldBlockEvents }
  }

  /// The channel's state in words, for a test that found it stuck.
  package var stateDescription: String {
    queue.sync {
      "\(name): \(phase), \(pendingWrites.count) writes waiting, write source \(writeSourceRunning ? "running" : "suspended"), "
        + "\(liveSources) live sources, fd \(descriptor.rawValue)"
    }
  }

  // MARK: - Sources

  private func startSources() {
    readSource.setEventHandler { [self] in readAvailable() }
    writeSource.setEventHandler { [self] in flushWrites() }
    // Each cancel handler holds the channel until it has run; dispatch drops the handlers after cancellation,
    // which breaks the cycles. The channel's own strong references to the sources are only to the objects.
    readSource.setCancelHandler { [self] in sourceDidCancel() }
    writeSource.setCancelHandler { [self] in sourceDidCancel() }
    readSource.activate()
    // Activate, then suspend at once: the write source only runs while a write waits for room.
    writeSource.activate()
    writeSource.suspend()
  }

  private func resumeWriteSource() {
    guard !writeSourceRunning else { return }
    writeSourceRunning = true
    writeSource.resume()
  }

  private func suspendWriteSource() {
    guard writeSourceRunning else { return }
    writeSourceRunning = false
    writeSource.suspend()
  }

  // MARK: - Reading

  /// Drains the descriptor until EAGAIN.
  ///
  /// Draining matters: after a hang-up, libdispatch on Linux reports the source once and drops the descriptor
  /// from epoll, so bytes left behind, or the 0-byte read that follows them, would never be seen.
  private func readAvailable() {
    guard phase == .open else { return }
    let reported = readSource.data  // bytes the kernel said were waiting; 0 for a hang-up event
    var readAnything = false
    while true {
      let result = readBuffer.withUnsafeMutableBytes { buffer in
        Result { () throws(Errno) in try descriptor.readRetryingInterrupts(into: buffer) }
      }
      switch result {
      case .success(let count) where count > 0:
        readAnything = true
        continuation.yield(Array(readBuffer[..<count]))
      case .success:
        return end(.disconnected(name, function: "read"))
      case .failure(.wouldBlock), .failure(.resourceTemporarilyUnavailable):
        // A wake-up with nothing to read: either spurious, or a hang-up that read(2) does not report. One
        // poll(2) with a zero timeout tells them apart; it runs only on this odd path, never in a loop.
        if !readAnything, reported == 0, hasHungUp() {
          end(.disconnected(name, function: "poll"))
        }
        return
      case .failure(let number) where Self.meansHangUp(number):
        return end(.disconnected(name, function: "read", errno: number))
      case .failure(let number):
        return end(.system("read", port: name, errno: number))
      }
    }
  }

  /// Whether a read or write error means the far end went away: EIO or ENXIO (a pseudo-terminal's other side,
  /// an unplugged USB device), EPIPE or ECONNRESET (a socket whose peer closed, with bytes still unread).
  private static func meansHangUp(_ number: Errno) -> Bool {
    number == .ioError || number == .noSuchAddressOrDevice || number == .brokenPipe || number == .connectionReset
  }

  private func hasHungUp() -> Bool {
    var entry = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
  }

  // MARK: - Writing

  private func enqueue(_ write: PendingWrite) {
    guard phase == .open else {
      return write.completion.resume(returning: .failure(endError ?? .closed(name)))
    }
    guard !write.bytes.isEmpty else {
      return write.completion.resume(returning: .success(()))
    }
    pendingWrites.append(write)
    // With the write source running the line is full and its handler will continue; otherwise start now.
    if !writeSourceRunning { flushWrites() }
  }

  /// Writes queued bytes until they are all out or the kernel's buffer is full.
  private func flushWrites() {
    while phase == .open, !pendingWrites.isEmpty {
      let offset = pendingWrites[0].offset
      let result = pendingWrites[0].bytes.withUnsafeBytes { buffer in
        Result { () throws(Errno) in
          try writeDescriptor.writeRetryingInterrupts(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
        }
      }
      switch result {
      case .success(let written) where written > 0:
        pendingWrites[0].offset += written
        if pendingWrites[0].offset == pendingWrites[0].bytes.count {
          pendingWrites.removeFirst().completion.resume(returning: .success(()))
        }
      case .success, .failure(.wouldBlock), .failure(.resourceTemporarilyUnavailable):
        return waitForRoom()
      case .failure(let number) where Self.meansHangUp(number):
        return end(.disconnected(name, function: "write", errno: number))
      case .failure(let number):
        return end(.system("write", port: name, errno: number))
      }
    }
    // Everything is out: stop watching for room, or an always-writable descriptor would wake us forever.
    if phase == .open { suspendWriteSource() }
  }

  private func waitForRoom() {
    wouldBlockEvents += 1
    wouldBlockObserver?()
    resumeWriteSource()
  }

  // MARK: - Closing

  /// Starts tearing down after a local close (`error` nil) or a failure: fails waiting writes and cancels both
  /// sources. The descriptor is closed in `sourceDidCancel()` once neither source can touch it any more.
  private func end(_ error: TransportError?) {
    guard phase == .open else { return }
    phase = .closing
    endError = error
    let writeError = error ?? .closed(name)
    for write in pendingWrites {
      write.completion.resume(returning: .failure(writeError))
    }
    pendingWrites.removeAll()
    readSource.cancel()
    writeSource.cancel()
    // A suspended source runs its cancel handler only once resumed.
    resumeWriteSource()
  }

  /// A source's cancel handler, on `queue`. The last one closes the descriptor: both sources are unregistered.
  private func sourceDidCancel() {
    liveSources -= 1
    guard liveSources == 0 else { return }
    precondition(phase == .closing, "a dispatch source was cancelled while the channel was open")
    phase = .released
    beforeClose?(descriptor)
    // Errors are not reported: on Linux the descriptor is released even when close(2) fails (EINTR, EIO), so
    // retrying could close an unrelated descriptor that reused the number, and there is nothing else to do.
    try? writeDescriptor.close()
    try? descriptor.close()
    // Finish only now, so that a reader who sees the end can reopen the port: the lock went with the close.
    if let endError {
      continuation.finish(throwing: endError)
    } else {
      continuation.finish()
    }
    for waiter in releaseWaiters {
      waiter.resume()
    }
    releaseWaiters.removeAll()
  }
}
