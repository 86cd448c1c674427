import CallAlertSerial
import CallAlertTransport
import Synchronization

/// A transport on the board's side whose wire can go silent both ways: while silent, nothing the host
/// sends reaches the board and nothing the board sends reaches the host, but the port stays open (a board
/// whose firmware hangs, a USB hub that stops passing data).
public final class SilenceableLine: ByteTransport, Sendable {
  /// What the host sent, unless silenced.
  public let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let inner: any ByteTransport
  private let silent = Mutex(false)

  /// Wraps the board's end of a line.
  public init(wrapping inner: any ByteTransport) {
    self.inner = inner
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    incoming = stream
    // On the event loop, with the board runner and the client it sits between: a test stepping a test clock
    // waits for the loop to catch up (`caughtUp`), which a pump on the pool would slip past.
    Task(executorPreference: DescriptorEventLoop.shared) { [self] in
      do {
        for try await chunk in inner.incoming where !silent.withLock({ $0 }) { continuation.yield(chunk) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
  }

  /// Silences the line (`true`) or lets it speak again.
  public func silence(_ on: Bool) { silent.withLock { $0 = on } }

  /// Writes unless silenced (then the bytes are lost, as on a dead wire).
  public func write(_ bytes: [UInt8]) async throws {
    if silent.withLock({ $0 }) { return }
    try await inner.write(bytes)
  }

  /// Drops `bytes` while silent, else hands them to the wrapped transport.
  public func sendWithoutWaiting(_ bytes: [UInt8]) -> Bool {
    if silent.withLock({ $0 }) { return true }
    return inner.sendWithoutWaiting(bytes)
  }

  /// Closes the wrapped transport.
  public func close() { inner.close() }
}

/// Hands a transport out once: a connector for a board that can be connected to only one time.
public final class HandOut: Sendable {
  private let value: Mutex<(any ByteTransport)?>

  /// Holds `transport` until it is taken.
  public init(_ transport: any ByteTransport) { value = Mutex(transport) }

  /// The transport, the first time; `noSuchPort` after.
  public func take() throws -> any ByteTransport {
    guard
      let transport = value.withLock({ current in
        defer { current = nil }
        return current
      })
    else {
      throw SerialPortError(code: .noSuchPort, port: "handed out")
    }
    return transport
  }
}
