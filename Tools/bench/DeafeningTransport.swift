import CallAlertTransport
import Synchronization

/// A board's end of the line that can go deaf and mute on command: while ``deaf`` is set, bytes from the host
/// are dropped before the board sees them and the board's answers are dropped before the host does, as when a
/// board's firmware hangs or its UART wedges with the USB link still up. The chaos soak uses it for "a board
/// whose answers stop".
final class DeafeningTransport: ByteTransport {
  /// Whether the line is deaf, and the bytes it dropped each way while it was.
  private final class State: Sendable {
    let deaf = Mutex(false)
    let dropped = Mutex(0)
  }

  private let inner: any ByteTransport
  private let state = State()

  /// What arrives from the host, less what came while deaf.
  let incoming: AsyncThrowingStream<[UInt8], any Error>

  /// Wraps `inner` (the pseudo-terminal's master side).
  init(_ inner: any ByteTransport, loop: DescriptorEventLoop) {
    self.inner = inner
    let source = inner.incoming
    let state = self.state
    incoming = AsyncThrowingStream { continuation in
      // On the event loop where the board runs and its bytes are read: no thread hand-off of the bench's own.
      let pump = Task(executorPreference: loop) {
        do {
          for try await chunk in source {
            if state.deaf.withLock({ $0 }) {
              state.dropped.withLock { $0 += chunk.count }
            } else {
              continuation.yield(chunk)
            }
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in pump.cancel() }
    }
  }

  /// Whether the board is deaf and mute now.
  var deaf: Bool {
    get { state.deaf.withLock { $0 } }
    set { state.deaf.withLock { $0 = newValue } }
  }

  /// Bytes dropped in both directions while deaf.
  var droppedBytes: Int { state.dropped.withLock { $0 } }

  func write(_ bytes: [UInt8]) async throws {
    if deaf {
      state.dropped.withLock { $0 += bytes.count }
      return
    }
    try await inner.write(bytes)
  }

  func sendWithoutWaiting(_ bytes: [UInt8]) -> Bool {
    if deaf {
      state.dropped.withLock { $0 += bytes.count }
      return true
    }
    return inner.sendWithoutWaiting(bytes)
  }

  func close() { inner.close() }
}
