import CallAlertTransport
import Clocks
import Synchronization
import Testing

@testable import CallAlertVirtualBoard

/// The real-time shaper against a test clock: bytes arrive progressively at the line's pace.
///
/// Run alone, after the parallel suite (make test's REALTIME_SUITES names `Pacing`): the clock is stepped 1 ms
/// at a time, and the shaper's and the reader's tasks must run between two steps for each piece to be stamped
/// with the step it arrived in. Beside 900 other tests on two cores they once fell ten steps behind.
@Suite struct ShapedTransportPacingTests {
  /// What the far end received, with the test clock's time of each piece.
  final class Arrivals: Sendable {
    private let pieces = Mutex<[(at: Duration, bytes: [UInt8])]>([])
    private let (stream, continuation) = AsyncStream.makeStream(of: Int.self)

    func record(_ bytes: [UInt8], at: Duration) {
      let total = pieces.withLock { pieces in
        pieces.append((at, bytes))
        return pieces.reduce(0) { $0 + $1.bytes.count }
      }
      continuation.yield(total)
    }

    /// Waits until `count` bytes have arrived (the test clock has already been advanced past their time).
    func waitFor(_ count: Int) async -> [(at: Duration, bytes: [UInt8])] {
      for await total in stream where total >= count { break }
      return pieces.withLock { $0 }
    }
  }

  /// Writes `payload` through a shaper paced at 115 200 baud + 1 ms and steps the clock 1 ms at a time.
  func transmit(_ payload: [UInt8], steps: Int) async throws -> [(at: Duration, bytes: [UInt8])] {
    let clock = TestClock()
    let start = clock.now
    let (near, far) = MemoryTransport.pair()
    let shaped = ShapedTransport(wrapping: near, pacing: .usbSerial115200, faults: .none, seed: 1, clock: clock)
    let arrivals = Arrivals()
    let reader = Task {
      for try await chunk in far.incoming { arrivals.record(chunk, at: start.duration(to: clock.now)) }
    }
    try await shaped.write(payload)
    for _ in 0..<steps { await clock.advance(by: .milliseconds(1)) }
    let pieces = await arrivals.waitFor(payload.count)
    shaped.close()
    reader.cancel()
    return pieces
  }

  @Test func aLongWriteArrivesProgressivelyAtTheLinesPace() async throws {
    let payload = (0..<2_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    // 2 000 bytes at 86.8 µs each take 173.6 ms on the line, plus 1 ms of latency.
    let pieces = try await transmit(payload, steps: 190)
    #expect(pieces.flatMap(\.bytes) == payload, "every byte, in order, nothing added")
    let first = try #require(pieces.first)
    let last = try #require(pieces.last)
    // The first bytes come after the latency plus at most one 64-byte quantum, not after the whole write.
    #expect(first.at >= .milliseconds(1) && first.at <= .milliseconds(10), "first piece at \(first.at)")
    // Nothing arrives faster than the line carries it: all of it no sooner than its line time.
    #expect(last.at >= .microseconds(174_600), "last piece at \(last.at)")
    // Handed on in pieces of about 64 bytes, as a USB adapter does, not all at once nor byte by byte.
    #expect(pieces.count >= 20 && pieces.count <= 60, "\(pieces.count) pieces")
    for piece in pieces {
      let lineTime = Duration.microseconds(
        Int64(Double(pieces.prefix { $0.at <= piece.at }.flatMap(\.bytes).count) * 86.8))
      #expect(piece.at >= lineTime, "bytes delivered at \(piece.at) before the line could carry them (\(lineTime))")
    }
  }

  @Test func anUnpacedCleanLinePassesBytesThroughUnchanged() async throws {
    let (near, far) = MemoryTransport.pair()
    let shaped = ShapedTransport(wrapping: near, pacing: .instant, faults: .none, seed: 1, clock: ContinuousClock())
    var iterator = far.incoming.makeAsyncIterator()
    try await shaped.write([1, 2, 3])
    try await far.write([9, 8])
    #expect(try await iterator.next() == [1, 2, 3])
    var back = shaped.incoming.makeAsyncIterator()
    #expect(try await back.next() == [9, 8])
    #expect(shaped.injected.total == 0)
    shaped.close()
    #expect(try await back.next() == nil, "the shaped stream ends after a local close")
    await #expect(throws: TransportError.self) { try await shaped.write([4]) }
  }

  @Test func theFarEndHangingUpEndsTheIncomingStreamWithItsError() async throws {
    let (near, far) = MemoryTransport.pair()
    let shaped = ShapedTransport(wrapping: near, pacing: .instant, faults: .none, seed: 1, clock: ContinuousClock())
    try await far.write([7])
    far.close()
    var received: [UInt8] = []
    let error = await #expect(throws: TransportError.self) {
      for try await chunk in shaped.incoming { received += chunk }
    }
    #expect(received == [7], "bytes sent before the hang-up are delivered first")
    #expect(error?.code == .disconnected)
  }

  @Test func faultsAreInjectedOnBothDirectionsFromTheSeed() async throws {
    let (near, far) = MemoryTransport.pair()
    let faults = FaultProfile(dropRate: 0.2)
    let shaped = ShapedTransport(wrapping: near, pacing: .instant, faults: faults, seed: 3, clock: ContinuousClock())
    try await shaped.write(Array(repeating: 0x55, count: 500))
    try await far.write(Array(repeating: 0xAA, count: 500))
    var out = far.incoming.makeAsyncIterator()
    let sent = try #require(try await out.next())
    var back = shaped.incoming.makeAsyncIterator()
    let received = try #require(try await back.next())
    #expect(sent.count < 500 && received.count < 500)
    #expect(shaped.injected.drops == 1_000 - sent.count - received.count)
    shaped.close()
  }

  /// A writer that outpaces the line is held back once the line's buffer (4 KiB of line time) is full,
  /// as a write to a serial port blocks, instead of queueing without bound.
  @Test func aWriterAheadOfTheLineWaitsForTheBuffer() async throws {
    let clock = TestClock()
    let (near, far) = MemoryTransport.pair()
    let shaped = ShapedTransport(wrapping: near, pacing: .usbSerial115200, faults: .none, seed: 1, clock: clock)
    let drain = Task { for try await _ in far.incoming {} }
    // 4 000 bytes fit the buffer: the write returns at once, before any time passes.
    try await shaped.write(Array(repeating: 1, count: 4_000))
    let returned = Mutex(false)
    let (started, starting) = AsyncStream.makeStream(of: Void.self)
    let second = Task {
      starting.yield()
      try await shaped.write(Array(repeating: 2, count: 2_000))
      returned.withLock { $0 = true }
    }
    for await _ in started { break }
    // 6 000 bytes are 521 ms of line time and 4 096 of them may wait, so the second write may return only
    // once 1 904 bytes have gone (165 ms).
    await clock.advance(by: .milliseconds(150))
    #expect(returned.withLock { $0 } == false, "the write waits while the line's buffer is full")
    await clock.advance(by: .milliseconds(400))
    try await second.value
    #expect(returned.withLock { $0 }, "and returns once the line has room")
    shaped.close()
    drain.cancel()
  }
}
