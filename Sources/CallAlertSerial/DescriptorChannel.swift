import CSerialPort
import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one event-driven I/O path for every descriptor-backed transport: real serial ports opened through
/// libserialport, pseudo-terminal slaves and masters, or any other non-blocking descriptor.
///
/// The channel owns the descriptor. A `DispatchSourceRead` wakes it only when the kernel reports the descriptor
/// readable (or hung up); there is no timer and no polling loop, so an idle connection costs no CPU. Received
/// bytes are delivered on ``incoming`` in the chunks read(2) returned. Writes go out in order and whole: when
/// the kernel's buffer is full (EAGAIN) the channel waits for a `DispatchSourceWrite` to report room, never
/// sleeps.
///
/// Hang-up detection: a readable descriptor that reads 0 bytes, or a read or write that fails with EIO or
/// ENXIO (a pseudo-terminal whose other side closed, an unplugged USB CDC-ACM device), ends ``incoming`` by
/// throwing ``SerialPortError`` with code ``SerialPortError/Code/disconnected``, after any bytes that arrived
/// before it. The descriptor is then released at once: holding a dead USB tty open would make the board come
/// back under a new name (`ttyACM1`) when it is plugged in again.
///
/// Lifetime: while open, the channel keeps itself alive through its dispatch sources, like a NIO channel on
/// its event loop; ``close()`` or a hang-up lets it go. ``incoming`` finishes only after the descriptor is
/// closed, so when a reader sees the stream end the port can be opened again straight away (the exclusive lock
/// is gone). Cancelling the task that iterates ``incoming`` closes the channel, since nobody would read again.
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
  private let descriptor: CInt
  private let holdsExclusiveAccess: Bool  // clear TIOCEXCL before closing: see `releaseIfIdle()`

  // Confined to `queue`.
  private var phase = Phase.open
  private var endError: SerialPortError?  // why `incoming` ends; nil after a local close
  private var readSource: (any DispatchSourceRead)?
  private var writeSource: (any DispatchSourceWrite)?  // exists only while a write waits for room
  private var liveSources = 0  // sources whose cancel handler has not run yet: the descriptor stays open
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

  private typealias WriteCompletion = CheckedContinuation<Result<Void, SerialPortError>, Never>

  private struct PendingWrite {
    var bytes: [UInt8]
    var offset: Int  // how many bytes are already out
    let completion: WriteCompletion
  }

  /// The most bytes one read(2) asks for; a pseudo-terminal hands over at most 4 KiB at a time anyway.
  private static let readChunkSize = 16 * 1024

  /// Takes ownership of `descriptor` and starts reading from it.
  ///
  /// The channel makes the descriptor non-blocking and close-on-exec, and, for a terminal, sets VMIN = 1 so
  /// that a 0-byte read means a hang-up and nothing else. On failure the descriptor is closed, so ownership
  /// passes to the channel whatever happens.
  ///
  /// - Parameters:
  ///   - descriptor: An open descriptor, for example from ``PseudoTerminal/open(baudRate:)``.
  ///   - name: The port name used in errors.
  public convenience init(taking descriptor: FileDescriptor, name: String) throws(SerialPortError) {
    try self.init(taking: descriptor, name: name, holdsExclusiveAccess: false)
  }

  /// Takes ownership of `descriptor`; `holdsExclusiveAccess` says the opener marked it with TIOCEXCL (and
  /// flock), so the channel clears the mark when it lets the descriptor go.
  init(taking descriptor: FileDescriptor, name: String, holdsExclusiveAccess: Bool) throws(SerialPortError) {
    do throws(SerialPortError) {
      try Terminal.makeNonBlocking(descriptor.rawValue, port: name)
      try Terminal.makeZeroByteReadMeanHangUp(descriptor.rawValue, port: name)
    } catch {
      descriptor.close()
      throw error
    }
    self.descriptor = descriptor.rawValue
    self.name = name
    self.holdsExclusiveAccess = holdsExclusiveAccess
    queue = DispatchQueue(label: "CallAlertSerial.DescriptorChannel(\(name))")
    (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    continuation.onTermination = { [weak self] termination in
      // Only a consumer that stopped listening; our own finish() reports `.finished`. close() hops to the
      // queue asynchronously, so this is safe even when called from inside the queue.
      if case .cancelled = termination { self?.close() }
    }
    queue.sync { startReading() }
  }

  /// Sends all of `bytes`, suspending (without blocking a thread) while the kernel's output buffer is full.
  ///
  /// Writes from concurrent callers are queued and go out one after another, never interleaved. A write that
  /// has started is not abandoned on task cancellation, because half a frame on the wire would corrupt the
  /// next one; ``close()`` fails writes that are still waiting.
  ///
  /// - Throws: ``SerialPortError`` with code ``SerialPortError/Code/closed`` after ``close()``,
  ///   ``SerialPortError/Code/disconnected`` after a hang-up.
  ///
  /// The corresponding C function is `write`.
  public func write(_ bytes: [UInt8]) async throws(SerialPortError) {
    let result = await withCheckedContinuation { (completion: WriteCompletion) in
      queue.async { self.enqueue(PendingWrite(bytes: bytes, offset: 0, completion: completion)) }
    }
    try result.get()
  }

  /// Closes the channel: stops reading, fails waiting writes and closes the descriptor.
  ///
  /// It returns at once; the descriptor is closed, and ``incoming`` finishes (without an error), as soon as
  /// dispatch has run the sources' cancel handlers, since closing a descriptor that epoll still watches is
  /// undefined. Await ``waitUntilReleased()`` to know when that happened. Calling it again does nothing.
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
  func observeWouldBlock(_ observer: @escaping @Sendable () -> Void) {
    queue.sync { wouldBlockObserver = observer }
  }

  /// How many times a write found the kernel's buffer full.
  var wouldBlockCount: Int {
    queue.sync { wouldBlockEvents }
  }

  // MARK: - Reading

  private func startReading() {
    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
    source.setEventHandler { [self] in readAvailable() }
    // The handler holds the source until it has run, so nothing frees it while dispatch still watches the
    // descriptor; dispatch drops both handlers after cancellation, which breaks the cycles.
    source.setCancelHandler { [self, source] in sourceDidCancel(source) }
    liveSources += 1
    readSource = source
    source.activate()
  }

  /// Drains the descriptor until EAGAIN.
  ///
  /// Draining matters: after a hang-up, libdispatch on Linux reports the source once and drops the descriptor
  /// from epoll, so bytes left behind, or the 0-byte read that follows them, would never be seen.
  private func readAvailable() {
    guard phase == .open else { return }
    let reported = readSource?.data ?? 0  // bytes the kernel said were waiting; 0 for a hang-up event
    var readAnything = false
    while true {
      let count = readBuffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count > 0 {
        readAnything = true
        continuation.yield(Array(readBuffer[..<count]))
        continue
      }
      if count == 0 {
        return end(.disconnected(name, function: "read"))
      }
      let number = errno
      switch number {
      case EINTR:
        continue
      case EAGAIN, EWOULDBLOCK:
        // A wake-up with nothing to read: either spurious, or a hang-up that read(2) does not report. One
        // poll(2) with a zero timeout tells them apart; it runs only on this odd path, never in a loop.
        if !readAnything, reported == 0, hasHungUp() {
          end(.disconnected(name, function: "poll"))
        }
        return
      case EIO, ENXIO:
        return end(.disconnected(name, function: "read", errno: number))
      default:
        return end(.system("read", port: name, errno: number))
      }
    }
  }

  private func hasHungUp() -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
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
    // With a write source in place the line is full and its handler will continue; otherwise start now.
    if writeSource == nil { flushWrites() }
  }

  /// Writes queued bytes until they are all out or the kernel's buffer is full.
  private func flushWrites() {
    while phase == .open, !pendingWrites.isEmpty {
      let offset = pendingWrites[0].offset
      let written = pendingWrites[0].bytes.withUnsafeBytes { buffer in
        systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
      }
      if written > 0 {
        pendingWrites[0].offset += written
        if pendingWrites[0].offset == pendingWrites[0].bytes.count {
          pendingWrites.removeFirst().completion.resume(returning: .success(()))
        }
        continue
      }
      let number = written == 0 ? EAGAIN : errno
      switch number {
      case EINTR:
        continue
      case EAGAIN, EWOULDBLOCK:
        return waitForRoom()
      case EIO, ENXIO, EPIPE:
        return end(.disconnected(name, function: "write", errno: number))
      default:
        return end(.system("write", port: name, errno: number))
      }
    }
    // Everything is out: stop watching for room, or an always-writable descriptor would wake us forever.
    writeSource?.cancel()
    writeSource = nil
  }

  private func waitForRoom() {
    wouldBlockEvents += 1
    wouldBlockObserver?()
    guard writeSource == nil else { return }
    let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
    source.setEventHandler { [self] in flushWrites() }
    source.setCancelHandler { [self, source] in sourceDidCancel(source) }
    liveSources += 1
    writeSource = source
    source.activate()
  }

  // MARK: - Closing

  /// Starts tearing down after a local close (`error` nil) or a failure: fails waiting writes and cancels the
  /// sources. The descriptor is closed in `releaseIfIdle()` once no source can touch it any more.
  private func end(_ error: SerialPortError?) {
    guard phase == .open else { return }
    phase = .closing
    endError = error
    let writeError = error ?? .closed(name)
    for write in pendingWrites {
      write.completion.resume(returning: .failure(writeError))
    }
    pendingWrites.removeAll()
    readSource?.cancel()
    readSource = nil
    writeSource?.cancel()
    writeSource = nil
    releaseIfIdle()
  }

  private func sourceDidCancel(_ source: any DispatchSourceProtocol) {
    liveSources -= 1
    releaseIfIdle()
  }

  private func releaseIfIdle() {
    guard phase == .closing, liveSources == 0 else { return }
    phase = .released
    // The flock lock goes with the close, but TIOCEXCL marks the tty, and a pseudo-terminal slave's tty lives
    // as long as its master: left set, it would make every later open by a non-root host fail with EBUSY.
    // Failure (EIO on a hung-up line) is harmless: that tty is going away.
    if holdsExclusiveAccess { _ = callalert_clear_exclusive(descriptor) }
    _ = systemClose(descriptor)
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

/// write(2), under a name that does not collide with ``DescriptorChannel/write(_:)``.
@inline(__always)
private func systemWrite(_ descriptor: CInt, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
  #elseif canImport(Musl)
    Musl.write(descriptor, bytes, count)
  #else
    Darwin.write(descriptor, bytes, count)
  #endif
}
