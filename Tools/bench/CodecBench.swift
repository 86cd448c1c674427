import CallAlertBenchMalloc
import CallAlertProtocol
import CallAlertVirtualBoard

#if canImport(Glibc)
  import Glibc
#endif

/// Encode and decode throughput of the frame codec (COBS + CRC-32C + header), and its allocations per frame,
/// beside a plain memcpy of the same wire bytes as the ceiling.
enum CodecBench {
  /// One operation's speed.
  struct Rate: Sendable {
    /// Frames per second (median of the runs).
    let framesPerSecond: Double
    /// Payload bytes per second, in MB (10^6 bytes).
    let payloadMBPerSecond: Double
    /// Wire bytes (COBS-encoded, with the delimiter) per second, in MB.
    let wireMBPerSecond: Double
    /// Heap allocation calls per frame (malloc, calloc, realloc, aligned allocations); nil when not counted.
    let allocationsPerFrame: Double?

    var json: JSONValue {
      .object([
        ("frames_per_s", .number(framesPerSecond)), ("payload_mb_per_s", .number(payloadMBPerSecond)),
        ("wire_mb_per_s", .number(wireMBPerSecond)),
        ("allocations_per_frame", allocationsPerFrame.map { .number($0) } ?? .null),
      ])
    }
  }

  /// The figures for one payload size.
  struct Figures: Sendable {
    /// The payload size.
    let payloadBytes: Int
    /// The encoded frame's size on the wire, delimiter included (average over the sample frames).
    let wireBytes: Double
    /// Frame.encoded(): header, CRC, COBS and delimiter into a new array (what the link's sender does).
    let encode: Rate
    /// Frame.encoded() of frames without a zero byte (the encoder's path for runs of 254 bytes without one).
    let encodeWithoutZeros: Rate
    /// Which COBS paths the sample frames take, and the frames without zeros.
    let paths: CodecPaths.COBSPaths
    let pathsWithoutZeros: CodecPaths.COBSPaths
    /// Frame.appendEncoded(to:) into a reused buffer.
    let encodeReusing: Rate
    /// FrameDecoder.feed(_:_:) over a stream of the frames, one frame delivered per delimiter.
    let decode: Rate
    /// FrameDecoder.push(_:) called byte by byte from here (no generic `feed` in between).
    let decodePush: Rate
    /// LinkEndpoint.receive(_:now:) of a host endpoint: the client's path for bytes from the board.
    let decodeEndpoint: Rate
    /// CRC32C.checksum(_:) over each frame's header and payload, called from this module (unspecialised).
    let crc: Rate
    /// The same CRC by the @inlinable CRC32C.update(_:) byte by byte (specialised, as inside the codec).
    let crcInlined: Rate
    /// COBS.decode(_:into:) of each frame into a reused buffer, called from this module (unspecialised).
    let cobsDecode: Rate
    /// memcpy of the same wire bytes into a reused buffer: the ceiling.
    let memcpy: Rate
    /// CRC32C.checksum(_:using:) over each frame's header and payload by each implementation this CPU has.
    let crcByImplementation: [(String, Rate)]

    var json: JSONValue {
      .object(
        [
          ("payload_bytes", .int(payloadBytes)), ("wire_bytes_per_frame", .number(wireBytes)),
          ("encode", encode.json), ("encode_reusing_buffer", encodeReusing.json), ("decode", decode.json),
          ("decode_push_per_byte", decodePush.json),
          ("decode_link_endpoint", decodeEndpoint.json), ("crc32c_checksum_call", crc.json),
          ("crc32c_inlined_update", crcInlined.json), ("cobs_decode_call", cobsDecode.json),
          ("memcpy", memcpy.json), ("encode_without_zeros", encodeWithoutZeros.json),
          ("cobs_paths", paths.json), ("cobs_paths_without_zeros", pathsWithoutZeros.json),
        ] + crcByImplementation.map { ("crc32c_\($0.0)", $0.1.json) })
    }
  }

  /// Measures each payload size; every timed run lasts about `secondsPerRun`, and `runs` runs are made.
  static func run(payloads: [Int] = [16, Frame.maxPayload], runs: Int = 5, secondsPerRun: Double = 0.2) -> [Figures] {
    payloads.map { measure(payloadBytes: $0, runs: runs, secondsPerRun: secondsPerRun) }
  }

  /// 64 distinct frames with random payloads: one byte in five a zero, so COBS has blocks to split; or, with
  /// `withoutZeros`, none, so a 1 KiB payload has runs of 254 bytes without a zero (the encoder's other path).
  static func sampleFrames(payloadBytes: Int, withoutZeros: Bool = false) -> [Frame] {
    var random = SplitMix64(seed: UInt64(payloadBytes))
    return (0..<64).map { index in
      Frame(
        sequence: UInt16(index), type: 0x40, nonce: 0x1234_5678,
        payload: (0..<payloadBytes).map { _ in
          withoutZeros
            ? UInt8(truncatingIfNeeded: random.next() % 255 + 1)
            : UInt8(truncatingIfNeeded: random.next() % 5 == 0 ? 0 : random.next())
        })
    }
  }

  private static func measure(payloadBytes: Int, runs: Int, secondsPerRun: Double) -> Figures {
    let frames = sampleFrames(payloadBytes: payloadBytes)
    let framesWithoutZeros = sampleFrames(payloadBytes: payloadBytes, withoutZeros: true)
    let wires = frames.map { $0.encoded() }
    let stream = wires.flatMap { $0 }
    let wireBytes = Double(stream.count) / Double(frames.count)

    func rate(_ framesPerBatch: Int, allocationsPerBatch: Double?, _ batch: () -> Int) -> Rate {
      // Size the batch count so one run lasts about secondsPerRun.
      var batches = 1
      while true {
        let elapsed = time { for _ in 0..<batches { sink(batch()) } }
        if elapsed.seconds >= secondsPerRun / 4 || batches > 1 << 24 {
          batches = Swift.max(1, Int(Double(batches) * secondsPerRun / Swift.max(elapsed.seconds, 1e-9)))
          break
        }
        batches *= 4
      }
      var perSecond: [Double] = []
      for _ in 0..<runs {
        let elapsed = time { for _ in 0..<batches { sink(batch()) } }
        perSecond.append(Double(batches * framesPerBatch) / elapsed.seconds)
      }
      let framesPerSecond = Summary(perSecond).p50
      return Rate(
        framesPerSecond: framesPerSecond, payloadMBPerSecond: framesPerSecond * Double(payloadBytes) / 1e6,
        wireMBPerSecond: framesPerSecond * wireBytes / 1e6,
        allocationsPerFrame: allocationsPerBatch.map { $0 / Double(framesPerBatch) })
    }

    let encodeBatch = {
      var total = 0
      for frame in frames { total &+= frame.encoded().count }
      return total
    }
    let encodeWithoutZerosBatch = {
      var total = 0
      for frame in framesWithoutZeros { total &+= frame.encoded().count }
      return total
    }
    var reused: [UInt8] = []
    reused.reserveCapacity(stream.count)
    let encodeReusingBatch = {
      reused.removeAll(keepingCapacity: true)
      for frame in frames { frame.appendEncoded(to: &reused) }
      return reused.count
    }
    var decoder = FrameDecoder(maxPayload: Frame.maxPayload)
    let decodeBatch = {
      var total = 0
      decoder.feed(stream) { output in
        if case .frame(let frame) = output { total &+= frame.payload.count }
      }
      return total
    }
    var pushDecoder = FrameDecoder(maxPayload: Frame.maxPayload)
    let pushBatch = {
      var total = 0
      for byte in stream {
        if case .frame(let frame)? = pushDecoder.push(byte) { total &+= frame.payload.count }
      }
      return total
    }
    var endpoint = LinkEndpoint(role: .host)
    let endpointBatch = {
      // The host's path for bytes from a board: the same frames, decoded and (being commands) ignored.
      endpoint.receive(stream, now: 0).count
    }
    let raws = frames.map { $0.rawBytes() }
    let crcBatch = {
      var total: UInt32 = 0
      for raw in raws { total &+= CRC32C.checksum(raw) }
      return Int(total)
    }
    let crcInlinedBatch = {
      var total: UInt32 = 0
      for raw in raws {
        var crc = CRC32C()
        for byte in raw { crc.update(byte) }
        total &+= crc.value
      }
      return Int(total)
    }
    let cobsBodies = wires.map { Array($0.dropLast()) }
    var cobsScratch: [UInt8] = []
    cobsScratch.reserveCapacity(stream.count)
    let cobsBatch = {
      var total = 0
      for body in cobsBodies {
        try? COBS.decode(body, into: &cobsScratch)
        total &+= cobsScratch.count
      }
      return total
    }
    var target = [UInt8](repeating: 0, count: stream.count)
    let memcpyBatch = {
      target.withUnsafeMutableBytes { destination in
        var offset = 0
        for wire in wires {
          wire.withUnsafeBytes { source in
            _ = Glibc.memcpy(destination.baseAddress! + offset, source.baseAddress!, source.count)
          }
          offset += wire.count
        }
      }
      return Int(target[target.count / 2])
    }

    let decoded = decodeBatch()
    precondition(decoded == payloadBytes * frames.count, "the decoder did not return every frame")
    return Figures(
      payloadBytes: payloadBytes, wireBytes: wireBytes,
      encode: rate(frames.count, allocationsPerBatch: allocations(encodeBatch), encodeBatch),
      encodeWithoutZeros: rate(
        frames.count, allocationsPerBatch: allocations(encodeWithoutZerosBatch), encodeWithoutZerosBatch),
      paths: CodecPaths.COBSPaths(raws),
      pathsWithoutZeros: CodecPaths.COBSPaths(framesWithoutZeros.map { $0.rawBytes() }),
      encodeReusing: rate(frames.count, allocationsPerBatch: allocations(encodeReusingBatch), encodeReusingBatch),
      decode: rate(frames.count, allocationsPerBatch: allocations(decodeBatch), decodeBatch),
      decodePush: rate(frames.count, allocationsPerBatch: allocations(pushBatch), pushBatch),
      decodeEndpoint: rate(frames.count, allocationsPerBatch: allocations(endpointBatch), endpointBatch),
      crc: rate(frames.count, allocationsPerBatch: allocations(crcBatch), crcBatch),
      crcInlined: rate(frames.count, allocationsPerBatch: allocations(crcInlinedBatch), crcInlinedBatch),
      cobsDecode: rate(frames.count, allocationsPerBatch: allocations(cobsBatch), cobsBatch),
      memcpy: rate(frames.count, allocationsPerBatch: allocations(memcpyBatch), memcpyBatch),
      crcByImplementation: CRC32C.Implementation.available.map { implementation in
        let batch = {
          var total: UInt32 = 0
          for raw in raws { total &+= raw.withUnsafeBytes { CRC32C.checksum($0, using: implementation) } }
          return Int(total)
        }
        return (name(implementation), rate(frames.count, allocationsPerBatch: allocations(batch), batch))
      })
  }

  /// The implementation's name in the JSON keys and the table.
  static func name(_ implementation: CRC32C.Implementation) -> String {
    switch implementation {
    case .nibbleTable: "nibble_table"
    case .sliceBy8: "slice_by_8"
    case .instruction: "instruction"
    }
  }

  /// Allocation calls one batch makes, averaged over 100 batches after a warm-up; nil without the counter.
  private static func allocations(_ batch: () -> Int) -> Double? {
    guard callalert_bench_counts_allocations() != 0 else { return nil }
    for _ in 0..<10 { sink(batch()) }
    let before = callalert_bench_allocations()
    for _ in 0..<100 { sink(batch()) }
    return Double(callalert_bench_allocations() - before) / 100
  }

  private static func time(_ body: () -> Void) -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    body()
    return start.duration(to: clock.now)
  }
}

/// Keeps a result alive so the optimiser cannot drop the work that made it.
@inline(never)
func sink(_ value: Int) {
  if value == -0x5EED { print("unreachable") }
}
