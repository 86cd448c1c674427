import CallAlertSerial
import Synchronization

/// Wraps a transport in a simulated wire for real-time use: seeded faults on both directions, and
/// pacing at a baud rate with latency, so that a host talking to `callalert board simulate --baud 115200`
/// sees a real line's throughput and a flaky cable's errors.
public final class ShapedTransport<C: Clock>: ByteTransport, @unchecked Sendable where C.Duration == Duration {
  /// The bytes from the far end, after faults and pacing.
  public let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let inner: any ByteTransport
  private let state: ShapingState
  private let clock: C
  private let pacing: WirePacing
  private let pump: Task<Void, Never>

  /// Wraps `inner`; faults are drawn from `seed`.
  public init(wrapping inner: any ByteTransport, pacing: WirePacing, faults: FaultProfile, seed: UInt64, clock: C) {
    self.inner = inner
    self.clock = clock
    self.pacing = pacing
    let state = ShapingState(faults: faults, seed: seed)
    self.state = state
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    incoming = stream
    pump = Task {
      do {
        for try await chunk in inner.incoming {
          let shaped = state.shape(chunk)
          try? await clock.sleep(for: pacing.delay(forBytes: chunk.count), tolerance: nil)
          if !shaped.isEmpty { continuation.yield(shaped) }
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
  }

  /// Writes after the faults, once the line would have carried the bytes.
  public func write(_ bytes: [UInt8]) async throws {
    let shaped = state.shape(bytes)
    try? await clock.sleep(for: pacing.delay(forBytes: bytes.count), tolerance: nil)
    if !shaped.isEmpty { try await inner.write(shaped) }
  }

  /// Closes the wrapped transport.
  public func close() {
    inner.close()
    pump.cancel()
  }

  /// Faults injected so far.
  public var injected: InjectedFaults { state.injected }
}

/// The wire model behind a ``ShapedTransport``, guarded for use from two directions at once.
final class ShapingState: Sendable {
  private let wire: Mutex<SimulatedWire>

  init(faults: FaultProfile, seed: UInt64) {
    // Stalls are real delays here (pacing), so the wire only drops, corrupts and duplicates.
    let faults = FaultProfile(
      dropRate: faults.dropRate, corruptRate: faults.corruptRate, duplicateRate: faults.duplicateRate)
    wire = Mutex(SimulatedWire(pacing: .instant, faults: faults, seed: seed))
  }

  func shape(_ bytes: [UInt8]) -> [UInt8] {
    wire.withLock { wire in
      wire.send(bytes, nowMicros: 0)
      return wire.receive(nowMicros: .max)
    }
  }

  var injected: InjectedFaults { wire.withLock { $0.injected } }
}

extension WirePacing {
  /// How long `count` bytes occupy the line plus the latency.
  func delay(forBytes count: Int) -> Duration {
    if baud == nil && latencyMicros == 0 { return .zero }
    return .microseconds(Int64(byteMicros * Double(count)) + Int64(latencyMicros))
  }
}
