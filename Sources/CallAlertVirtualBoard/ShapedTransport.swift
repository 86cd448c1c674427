import CallAlertTransport
import Synchronization

/// Wraps a transport in a simulated wire for real-time use: seeded faults on both directions, and
/// pacing at a baud rate with latency, so that a host talking to `callalert board simulate --baud 115200`
/// sees a real line's throughput and a flaky cable's errors.
///
/// Each direction is a ``SimulatedWire`` run against the clock: bytes arrive one after another at the
/// line's speed, so a frame written behind a long burst arrives when a UART would deliver it, not when the
/// whole burst has passed. Arrived bytes are handed on in pieces (see ``PacedLine``), as a USB serial
/// adapter does.
public final class ShapedTransport<C: Clock>: ByteTransport, Sendable where C.Duration == Duration {
  /// The bytes from the far end, after faults and pacing.
  public let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let inner: any ByteTransport
  private let outbound: PacedLine<C>
  private let inbound: PacedLine<C>
  private let tasks: [Task<Void, Never>]

  /// Wraps `inner`; faults are drawn from `seed` (each direction from its own stream of it).
  public init(wrapping inner: any ByteTransport, pacing: WirePacing, faults: FaultProfile, seed: UInt64, clock: C) {
    self.inner = inner
    let outbound = PacedLine(pacing: pacing, faults: faults, seed: seed, clock: clock)
    let inbound = PacedLine(pacing: pacing, faults: faults, seed: seed ^ 0x9E37_79B9_7F4A_7C15, clock: clock)
    self.outbound = outbound
    self.inbound = inbound
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    incoming = stream
    tasks = [
      Task { _ = await outbound.deliver { bytes in try await inner.write(bytes) } },
      Task {
        let ending = await inbound.deliver { bytes in continuation.yield(bytes) }
        continuation.finish(throwing: ending)
      },
      Task {
        // Reading waits while the inbound line has more than its buffer's worth to carry, so that the far
        // end's writes back up as they would on a real line instead of queueing without bound.
        do {
          for try await chunk in inner.incoming { try await inbound.write(chunk) }
          inbound.finish(throwing: nil)
        } catch {
          inbound.finish(throwing: error)
        }
      },
    ]
  }

  /// Puts the bytes on the line; returns once they fit in the simulated output buffer, as a write to a
  /// serial port returns once the driver has taken the bytes.
  public func write(_ bytes: [UInt8]) async throws {
    try await outbound.write(bytes)
  }

  /// Closes the wrapped transport; bytes still on the simulated line are lost, as on a pulled cable.
  public func close() {
    outbound.finish(throwing: nil, discardingInTransit: true)
    inbound.finish(throwing: nil, discardingInTransit: true)
    inner.close()
    for task in tasks { task.cancel() }
  }

  /// Faults injected so far, both directions together.
  public var injected: InjectedFaults { outbound.injected + inbound.injected }
}

/// One direction of a ``ShapedTransport``: a ``SimulatedWire`` in real time. Bytes put on it arrive at
/// the wire's pace; ``deliver(_:)`` hands them on as they arrive, waiting after the first arrival for up to
/// ``quantumMicros`` so that a fast line is not delivered a byte at a time.
final class PacedLine<C: Clock>: Sendable where C.Duration == Duration {
  private struct State {
    var wire: SimulatedWire
    var finished = false
    var ending: (any Error)?
  }

  /// How long arrived bytes may wait to be handed on together: the line time of 64 bytes (a USB
  /// full-speed packet), at least 1 ms; nothing for an unpaced line.
  let quantumMicros: UInt64
  /// How many bytes' line time a write may run ahead before it waits (a serial driver's buffer).
  let bufferMicros: UInt64
  private let state: Mutex<State>
  private let clock: C
  private let origin: C.Instant
  private let doorbell: AsyncStream<Void>
  private let ring: AsyncStream<Void>.Continuation

  init(pacing: WirePacing, faults: FaultProfile, seed: UInt64, clock: C, bufferBytes: Int = 4_096) {
    state = Mutex(State(wire: SimulatedWire(pacing: pacing, faults: faults, seed: seed)))
    self.clock = clock
    origin = clock.now
    quantumMicros = pacing.baud == nil ? 0 : max(1_000, UInt64((pacing.byteMicros * 64).rounded(.up)))
    bufferMicros = UInt64(pacing.byteMicros * Double(bufferBytes))
    (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  /// Microseconds since this line was made.
  var nowMicros: UInt64 {
    let (seconds, attoseconds) = origin.duration(to: clock.now).components
    return UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000
  }

  /// Puts bytes on the line, then waits while more than the buffer's worth is still to be transmitted.
  func write(_ bytes: [UInt8]) async throws {
    let now = nowMicros
    let lineFree: UInt64? = state.withLock { state in
      guard !state.finished else { return nil }
      state.wire.send(bytes, nowMicros: now)
      return state.wire.lineFreeAtMicros
    }
    guard let lineFree else { throw TransportError.closed("shaped line") }
    ring.yield()
    if lineFree > now + bufferMicros {
      try await clock.sleep(until: origin.advanced(by: .microseconds(lineFree - bufferMicros)), tolerance: nil)
    }
  }

  /// Ends the line: ``deliver(_:)`` hands on what is still in transit (unless discarded) and returns `error`.
  func finish(throwing error: (any Error)?, discardingInTransit: Bool = false) {
    state.withLock { state in
      if !state.finished { state.ending = error }
      state.finished = true
      if discardingInTransit { state.wire.cut() }
    }
    ring.finish()
  }

  /// Hands arrived bytes to `body`, in order, until the line is finished and empty, `body` throws or the
  /// task is cancelled. Returns the error the line was finished with (or `body`'s).
  func deliver(_ body: ([UInt8]) async throws -> Void) async -> (any Error)? {
    do {
      for await _ in doorbell { try await drain(body) }
      try await drain(body)
    } catch is CancellationError {
      return nil
    } catch {
      finish(throwing: error, discardingInTransit: true)
      return error
    }
    return state.withLock { $0.ending }
  }

  private func drain(_ body: ([UInt8]) async throws -> Void) async throws {
    while let next = state.withLock({ $0.wire.nextArrivalMicros }) {
      let due = next + quantumMicros
      if due > nowMicros { try await clock.sleep(until: origin.advanced(by: .microseconds(due)), tolerance: nil) }
      let now = nowMicros
      let bytes = state.withLock { $0.wire.receive(nowMicros: now) }
      if !bytes.isEmpty { try await body(bytes) }
    }
  }

  /// Faults injected so far.
  var injected: InjectedFaults { state.withLock { $0.wire.injected } }
}

extension InjectedFaults {
  /// The faults of two wires together.
  public static func + (a: InjectedFaults, b: InjectedFaults) -> InjectedFaults {
    var sum = a
    sum.drops += b.drops
    sum.corruptions += b.corruptions
    sum.duplicates += b.duplicates
    sum.stalls += b.stalls
    return sum
  }
}
