import Benchmark
import CallAlertProtocol

/// The frame codec, per frame of 64 with random payloads (one byte in five zero): encoding (header, CRC-32C,
/// COBS, delimiter), decoding a stream of them, and the CRC by each implementation, for 16- and 1 024-byte
/// payloads; throughput, wall clock and allocations per iteration.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.throughput, .wallClock, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2))

  for payloadBytes in [16, Frame.maxPayload] {
    let frames = sampleFrames(payloadBytes: payloadBytes)
    let stream = frames.flatMap { $0.encoded() }
    let raws = frames.map { $0.rawBytes() }

    Benchmark("encode \(payloadBytes) B (64 frames)") { benchmark in
      for _ in benchmark.scaledIterations {
        for frame in frames { blackHole(frame.encoded()) }
      }
    }
    Benchmark("decode \(payloadBytes) B (64 frames, FrameDecoder.feed)") { benchmark in
      var decoder = FrameDecoder()
      for _ in benchmark.scaledIterations {
        decoder.feed(stream) { blackHole($0) }
      }
    }
    for implementation in CRC32C.Implementation.available {
      Benchmark("CRC-32C \(implementation) \(payloadBytes) B (64 frames)") { benchmark in
        for _ in benchmark.scaledIterations {
          for raw in raws { blackHole(raw.withUnsafeBytes { CRC32C.checksum($0, using: implementation) }) }
        }
      }
    }
  }
}

/// 64 frames with random payloads of `payloadBytes` bytes, about one byte in five zero.
func sampleFrames(payloadBytes: Int) -> [Frame] {
  var state = UInt64(payloadBytes)
  func next() -> UInt64 {  // SplitMix64
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  return (0..<64).map { index in
    Frame(
      sequence: UInt16(index), type: 0x40, nonce: 0x1234_5678,
      payload: (0..<payloadBytes).map { _ in next() % 5 == 0 ? 0 : UInt8(truncatingIfNeeded: next()) })
  }
}
