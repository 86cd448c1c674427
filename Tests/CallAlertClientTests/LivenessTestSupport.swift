import CallAlertTransport
import Clocks
import Synchronization

/// A transport on the board's side whose wire can go silent both ways: while silent, nothing the host
/// sends reaches the board and nothing the board sends reaches the host, but the port stays open (a board
/// whose firmware hangs, a USB hub that stops passing data).
final class SilenceableLine: ByteTransport, Sendable {
  let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let inner: any ByteTransport
  private let silent = Mutex(false)

  init(wrapping inner: any ByteTransport) {
    self.inner = inner
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    incoming = stream
    Task { [self] in
      do {
        for try await chunk in inner.incoming where !silent.withLock({ $0 }) { continuation.yield(chunk) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
  }

  func silence(_ on: Bool) { silent.withLock { $0 = on } }

  func write(_ bytes: [UInt8]) async throws {
    if silent.withLock({ $0 }) { return }
    try await inner.write(bytes)
  }

  func close() {
    inner.close()
  }
}

/// Advances `clock` in `step`s until `condition` holds; returns the virtual time it took, or nil when it
/// did not hold within `limit` (a bounded wait: a regression fails, never hangs).
func advance(
  _ clock: TestClock<Duration>, by step: Duration = .milliseconds(10), within limit: Duration,
  until condition: () async -> Bool
) async -> Duration? {
  var elapsed = Duration.zero
  while elapsed <= limit {
    if await condition() { return elapsed }
    await clock.advance(by: step)
    elapsed += step
  }
  return nil
}

/// Events as they come, kept for the test to look at between clock steps.
final class EventLog<Event: Sendable>: Sendable {
  private let seen = Mutex<[Event]>([])

  init(_ stream: AsyncStream<Event>) {
    Task { [self] in for await event in stream { seen.withLock { $0.append(event) } } }
  }

  var all: [Event] { seen.withLock { $0 } }

  func contains(where predicate: (Event) -> Bool) -> Bool { seen.withLock { $0.contains(where: predicate) } }
}
