import Synchronization

/// One end of an in-memory byte pipe, for tests and for running the virtual board in-process.
///
/// It keeps the ``ByteTransport`` semantics of ``DescriptorChannel``: bytes written on one end arrive on the
/// other's ``incoming`` in order, in the chunks they were written; ``close()`` ends this end's stream normally
/// and the other end's by throwing ``TransportError`` with code ``TransportError/Code/disconnected`` (after
/// the bytes already sent); writing after a close throws ``TransportError/Code/closed`` on the closed end and
/// ``TransportError/Code/disconnected`` on the other. Writes never wait: the pipe has no capacity limit.
///
/// ```swift
/// let (host, board) = MemoryTransport.pair()
/// try await host.write([0x01, 0x02, 0x00])
/// for try await chunk in board.incoming { … }
/// ```
public final class MemoryTransport: ByteTransport, Sendable {
  /// The name used in errors, such as `memory-host`.
  public let name: String
  /// The bytes the other end wrote, in the chunks it wrote them. Iterate it from one task only.
  public let incoming: AsyncThrowingStream<[UInt8], any Error>

  private let link: Link
  private let side: Int

  /// Creates two connected ends: what one writes, the other reads.
  ///
  /// - Parameter names: The ends' names, used in their errors.
  public static func pair(names: (String, String) = ("memory-a", "memory-b")) -> (MemoryTransport, MemoryTransport) {
    let link = Link()
    return (MemoryTransport(link: link, side: 0, name: names.0), MemoryTransport(link: link, side: 1, name: names.1))
  }

  private init(link: Link, side: Int, name: String) {
    self.link = link
    self.side = side
    self.name = name
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    incoming = stream
    link.attach(continuation, name: name, side: side)
    continuation.onTermination = { [weak self] termination in
      // A consumer that stopped listening closes its end, as with a descriptor channel.
      if case .cancelled = termination { self?.close() }
    }
  }

  /// Delivers `bytes` to the other end.
  ///
  /// - Throws: ``TransportError`` with code ``TransportError/Code/closed`` after this end's ``close()``,
  ///   ``TransportError/Code/disconnected`` after the other end's.
  public func write(_ bytes: [UInt8]) async throws(TransportError) {
    try link.send(bytes, from: side)
  }

  /// Closes this end: its ``incoming`` finishes, the other end's throws a disconnect. Calling it again does
  /// nothing.
  public func close() {
    link.close(side)
  }
}

/// The state both ends share, behind one lock so that a close and a write cannot race.
private final class Link: Sendable {
  private typealias Continuation = AsyncThrowingStream<[UInt8], any Error>.Continuation

  private struct Ends {
    var continuations: [Continuation?] = [nil, nil]
    var names = ["", ""]
    var closed = [false, false]
  }

  private let ends = Mutex(Ends())

  func attach(_ continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation, name: String, side: Int) {
    ends.withLock { ends in
      ends.continuations[side] = continuation
      ends.names[side] = name
    }
  }

  func send(_ bytes: [UInt8], from side: Int) throws(TransportError) {
    let peer = 1 - side
    // Yield outside the lock: yielding resumes the reader's task under the runtime's task lock, while a reader
    // being cancelled holds that lock and runs onTermination, which closes its end and takes this one.
    let outcome: Result<Continuation?, TransportError> = ends.withLock { ends in
      if ends.closed[side] { return .failure(.closed(ends.names[side])) }
      if ends.closed[peer] { return .failure(.disconnected(ends.names[side])) }
      return .success(ends.continuations[peer])
    }
    let peerEnd = try outcome.get()
    if !bytes.isEmpty { peerEnd?.yield(bytes) }
  }

  func close(_ side: Int) {
    let peer = 1 - side
    let closing: (own: Continuation?, peer: Continuation?, peerName: String)? = ends.withLock { ends in
      if ends.closed[side] { return nil }
      ends.closed[side] = true
      return (ends.continuations[side], ends.closed[peer] ? nil : ends.continuations[peer], ends.names[peer])
    }
    // Finish outside the lock: finish() runs the streams' onTermination handlers, which may call close().
    guard let closing else { return }
    closing.own?.finish()
    closing.peer?.finish(throwing: TransportError.disconnected(closing.peerName))
  }
}
