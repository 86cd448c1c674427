/// A full-duplex byte pipe to a board: a serial port, a pseudo-terminal, or an in-memory pair.
///
/// The link layer above reads ``incoming`` in one task and calls ``write(_:)`` from others; the framing
/// (COBS, CRC) lives there, so a transport delivers bytes in whatever chunks the operating system produced.
///
/// The semantics every implementation keeps:
/// - ``incoming`` yields the bytes in order, then ends: normally after a local ``close()``, or by throwing
///   a ``TransportError`` with code ``TransportError/Code/disconnected`` when the far end went away.
///   Bytes that arrived before the hang-up are delivered before the error.
/// - ``write(_:)`` returns once every byte was handed to the operating system (or the peer), and throws
///   ``TransportError/Code/closed`` after a local close, ``TransportError/Code/disconnected`` after a
///   hang-up. Concurrent writes are never interleaved: each one's bytes go out contiguously.
/// - ``close()`` is idempotent, never blocks, and fails writes that are still waiting.
public protocol ByteTransport: AnyObject, Sendable {
  /// The bytes received, in chunks. There is one stream per transport: iterate it from one task only.
  var incoming: AsyncThrowingStream<[UInt8], any Error> { get }

  /// Sends all of `bytes`, suspending while the line is full.
  func write(_ bytes: [UInt8]) async throws

  /// Hands `bytes` over to go out behind everything handed over before, without waiting: written now, or
  /// queued to go out as soon as the line has room. True when taken; false when this transport cannot take
  /// bytes that way (or is closed), and the caller then writes with ``write(_:)``. A failure of the line is
  /// reported by ``incoming``'s end, not here. Never interleaves with ``write(_:)``'s bytes.
  func sendWithoutWaiting(_ bytes: [UInt8]) -> Bool

  /// Closes the transport. Calling it again does nothing.
  func close()

  /// Returns once a closed transport has let go of what it holds (a port's descriptor and lock), so that
  /// the port can be opened again at once. Transports that hold nothing return at once.
  func waitUntilReleased() async
}

extension ByteTransport {
  /// Returns at once: this transport holds nothing that outlives ``close()``.
  public func waitUntilReleased() async {}

  /// False: this transport sends only through ``write(_:)``.
  public func sendWithoutWaiting(_ bytes: [UInt8]) -> Bool { false }
}
