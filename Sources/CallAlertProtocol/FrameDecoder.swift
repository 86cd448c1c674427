/// A streaming frame decoder: takes bytes in any chunking and yields whole frames or the reason a
/// delimited frame was dropped.
///
/// It never consumes a partial frame and never allocates per byte: bytes collect in one buffer, bounded
/// by the largest frame the receiver accepts; a frame that outgrows it is discarded up to the next 0x00
/// and reported as ``FrameError/overlong(count:)``. Empty frames (0x00 0x00) are idle fill and ignored.
public struct FrameDecoder: Sendable {
  /// What one delimited frame turned into.
  public enum Output: Equatable, Sendable {
    /// A frame that passed every check.
    case frame(Frame)
    /// A frame that was dropped, and why.
    case dropped(FrameError)
  }

  /// The largest payload accepted.
  public let maxPayload: Int
  /// The largest COBS-encoded frame (without delimiter) that can hold `maxPayload`.
  public let maxEncoded: Int
  /// Counts of what the decoder has seen, for status reports.
  public private(set) var counters = DecoderCounters()

  private var buffer: [UInt8] = []
  private var scratch: [UInt8]  // the decoded frame; fixed size, with COBS.decodeSlack to spare
  private var discarded = 0  // bytes thrown away from an over-long frame, 0 when not discarding

  /// Creates a decoder that accepts payloads up to `maxPayload` bytes.
  public init(maxPayload: Int = Frame.maxPayload) {
    self.maxPayload = maxPayload
    maxEncoded = COBS.maxEncodedCount(Frame.headerSize + maxPayload + Frame.trailerSize)
    buffer.reserveCapacity(maxEncoded)
    scratch = [UInt8](repeating: 0, count: maxEncoded + COBS.decodeSlack)
  }

  /// Takes one byte; returns an output when the byte was a delimiter that closed a non-empty frame.
  public mutating func push(_ byte: UInt8) -> Output? {
    if byte != 0 {
      if discarded > 0 {
        discarded += 1
      } else if buffer.count == maxEncoded {
        discarded = buffer.count + 1
        buffer.removeAll(keepingCapacity: true)
      } else {
        buffer.append(byte)
      }
      return nil
    }
    return delimit()
  }

  /// Takes a chunk of bytes and calls `body` for each frame or drop it completes, in order. Contiguous chunks go
  /// through ``feed(buffer:_:)``; anything else byte by byte. (Inlinable so that callers in other modules get a
  /// loop specialised for their collection, without an allocation per byte.)
  @inlinable
  public mutating func feed(_ bytes: some Sequence<UInt8>, _ body: (Output) -> Void) {
    let done: Void? = bytes.withContiguousStorageIfAvailable { feed(buffer: $0, body) }
    if done == nil {
      for byte in bytes {
        if let output = push(byte) { body(output) }
      }
    }
  }

  /// Takes a chunk of bytes and returns every frame or drop it completes, in order.
  @inlinable
  public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Output] {
    var outputs: [Output] = []
    feed(bytes) { outputs.append($0) }
    return outputs
  }

  /// Takes a buffer of bytes and calls `body` for each frame or drop it completes, in order: the same outputs as
  /// ``push(_:)`` byte by byte, found a delimiter at a time (eight bytes per step), and a frame that lies whole in
  /// the buffer decoded where it lies.
  public mutating func feed(buffer chunk: UnsafeBufferPointer<UInt8>, _ body: (Output) -> Void) {
    guard let base = chunk.baseAddress else { return }
    var start = 0
    while start < chunk.count {
      let delimiter = COBS.firstZero(base + start, chunk.count - start).map { start + $0 }
      let end = delimiter ?? chunk.count
      let run = UnsafeBufferPointer(start: base + start, count: end - start)
      start = end + 1
      if discarded > 0 {
        discarded += run.count
      } else if buffer.count + run.count > maxEncoded {
        discarded = buffer.count + run.count
        buffer.removeAll(keepingCapacity: true)
      } else if delimiter != nil && buffer.isEmpty && !run.isEmpty {
        body(decode(run))
        continue
      } else {
        buffer.append(contentsOf: run)
      }
      guard delimiter != nil else { return }
      if let output = delimit() { body(output) }
    }
  }

  /// Forgets a partly received frame, e.g. after the port was reopened.
  public mutating func reset() {
    buffer.removeAll(keepingCapacity: true)
    discarded = 0
  }

  /// A delimiter arrived: the over-long frame's drop, the buffered frame's output, or nothing for idle fill.
  private mutating func delimit() -> Output? {
    if discarded > 0 {
      let count = discarded
      discarded = 0
      counters.overlong &+= 1
      return .dropped(.overlong(count: count))
    }
    if buffer.isEmpty { return nil }
    defer { buffer.removeAll(keepingCapacity: true) }
    return buffer.withUnsafeBufferPointer { decode($0) }
  }

  /// Decodes one delimited, non-empty frame of at most `maxEncoded` bytes (no zero in it: it ended at the first)
  /// and counts the outcome.
  private mutating func decode(_ encoded: UnsafeBufferPointer<UInt8>) -> Output {
    let maxPayload = maxPayload
    let parsed: Result<Frame, FrameError> = scratch.withUnsafeMutableBufferPointer { out in
      switch COBS.decode(encoded, into: out.baseAddress!, knownWithoutZeros: true) {
      case .failure(let error): return .failure(.cobs(error))
      case .success(let count):
        return Frame.parse(buffer: UnsafeBufferPointer(start: out.baseAddress!, count: count), maxPayload: maxPayload)
      }
    }
    switch parsed {
    case .success(let frame):
      counters.frames &+= 1
      return .frame(frame)
    case .failure(let error):
      switch error {
      case .crcMismatch: counters.crc &+= 1
      default: counters.framing &+= 1
      }
      return .dropped(error)
    }
  }
}

/// What a ``FrameDecoder`` has counted since it was made.
public struct DecoderCounters: Equatable, Sendable {
  /// Frames that passed every check.
  public var frames: UInt32 = 0
  /// Frames dropped for a CRC mismatch.
  public var crc: UInt32 = 0
  /// Frames dropped for broken COBS, a short frame, a length mismatch, an unknown version or bad flags.
  public var framing: UInt32 = 0
  /// Frames dropped for outgrowing the receiver's buffer.
  public var overlong: UInt32 = 0

  /// Creates zeroed counters.
  public init() {}
}
