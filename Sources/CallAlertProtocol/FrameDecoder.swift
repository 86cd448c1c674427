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
  private var scratch: [UInt8] = []
  private var discarded = 0  // bytes thrown away from an over-long frame, 0 when not discarding

  /// Creates a decoder that accepts payloads up to `maxPayload` bytes.
  public init(maxPayload: Int = Frame.maxPayload) {
    self.maxPayload = maxPayload
    maxEncoded = COBS.maxEncodedCount(Frame.headerSize + maxPayload + Frame.trailerSize)
    buffer.reserveCapacity(maxEncoded)
    scratch.reserveCapacity(maxEncoded)
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
    if discarded > 0 {
      let count = discarded
      discarded = 0
      counters.overlong &+= 1
      return .dropped(.overlong(count: count))
    }
    if buffer.isEmpty { return nil }
    defer { buffer.removeAll(keepingCapacity: true) }
    do throws(COBSError) {
      try COBS.decode(buffer, into: &scratch)
    } catch {
      counters.framing &+= 1
      return .dropped(.cobs(error))
    }
    do throws(FrameError) {
      let frame = try Frame.parse(raw: scratch, maxPayload: maxPayload)
      counters.frames &+= 1
      return .frame(frame)
    } catch {
      switch error {
      case .crcMismatch: counters.crc &+= 1
      default: counters.framing &+= 1
      }
      return .dropped(error)
    }
  }

  /// Takes a chunk of bytes and calls `body` for each frame or drop it completes, in order. (Inlinable so that
  /// callers in other modules get a loop specialised for their collection, without an allocation per byte.)
  @inlinable
  public mutating func feed(_ bytes: some Sequence<UInt8>, _ body: (Output) -> Void) {
    for byte in bytes {
      if let output = push(byte) { body(output) }
    }
  }

  /// Takes a chunk of bytes and returns every frame or drop it completes, in order.
  @inlinable
  public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Output] {
    var outputs: [Output] = []
    feed(bytes) { outputs.append($0) }
    return outputs
  }

  /// Forgets a partly received frame, e.g. after the port was reopened.
  public mutating func reset() {
    buffer.removeAll(keepingCapacity: true)
    discarded = 0
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
