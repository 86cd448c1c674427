import CallAlertProtocol
import CallAlertVirtualBoard
import PropertyBased
import Testing

/// The stream decoder gives the same outputs (and counters) however its input is cut: all at once, byte by byte,
/// frame by frame, or in random chunks — the check swift-nio's ByteToMessageDecoderVerifier makes.
@Suite struct FrameDecoderChunkingTests {
  /// A stream mixing good frames, every kind of drop and idle fill.
  static var mixedStream: [UInt8] {
    var rng = SplitMix64(seed: 0xC0B5_C0B5)
    var stream: [UInt8] = [0, 0]
    for index in 0..<40 {
      let framed = FramedMessage(message: Arbitrary.message(using: &rng), sequence: UInt16(index), nonce: 7)
      var wire = framed.frame.encoded()
      switch index % 8 {
      case 3: wire[rng.draw(0...wire.count - 2)] ^= 0x01  // corrupt (a flip to 0x00 splits the frame)
      case 5: wire = [UInt8](repeating: 0x77, count: 1100) + [0]  // over-long
      case 7: wire = [0x05, 0x01, 0x00]  // broken COBS
      default: break
      }
      stream += wire
      if index % 6 == 0 { stream += [0, 0, 0] }
    }
    return stream
  }

  /// Feeds `chunks` through one decoder; returns the outputs and the final counters.
  static func decode(_ chunks: [ArraySlice<UInt8>]) -> ([FrameDecoder.Output], DecoderCounters) {
    var decoder = FrameDecoder()
    var outputs: [FrameDecoder.Output] = []
    for chunk in chunks { outputs += decoder.feed(chunk) }
    return (outputs, decoder.counters)
  }

  /// `bytes` cut into chunks of random sizes up to `maxChunk`.
  static func randomChunks(_ bytes: [UInt8], maxChunk: Int, rng: inout SplitMix64) -> [ArraySlice<UInt8>] {
    var chunks: [ArraySlice<UInt8>] = []
    var start = 0
    while start < bytes.count {
      let end = min(bytes.count, start + rng.draw(0...maxChunk))
      chunks.append(bytes[start..<end])
      start = end
    }
    return chunks
  }

  @Test func allAtOnceByteByByteAndFrameByFrameAgree() {
    let stream = Self.mixedStream
    let (whole, wholeCounters) = Self.decode([stream[...]])
    let (bytewise, bytewiseCounters) = Self.decode(stream.indices.map { stream[$0...$0] })
    let (framewise, framewiseCounters) = Self.decode(
      stream.split(separator: 0, omittingEmptySubsequences: false).map {
        // Each delimited piece with its delimiter.
        let end = $0.endIndex < stream.endIndex ? $0.endIndex + 1 : $0.endIndex
        return stream[$0.startIndex..<end]
      })
    #expect(bytewise == whole)
    #expect(framewise == whole)
    #expect(bytewiseCounters == wholeCounters && framewiseCounters == wholeCounters)
    // The stream exercised every counter.
    #expect(wholeCounters.frames > 20 && wholeCounters.crc + wholeCounters.framing > 3 && wholeCounters.overlong == 5)
    // The push API agrees with feed.
    var decoder = FrameDecoder()
    #expect(stream.compactMap { decoder.push($0) } == whole)
  }

  @Test func randomChunkingsAgree() async {
    let stream = Self.mixedStream
    let (expected, expectedCounters) = Self.decode([stream[...]])
    await propertyCheck(count: 200, input: Generators.seed) { seed throws in
      var rng = SplitMix64(seed: seed)
      let (outputs, counters) = Self.decode(Self.randomChunks(stream, maxChunk: rng.draw(1...300), rng: &rng))
      #expect(outputs == expected)
      #expect(counters == expectedCounters)
    }
  }

  @Test func randomMessagesComeOutInOrderWhateverTheChunking() async {
    await propertyCheck(count: 200, input: Generators.framedMessage.array(of: 1...12), Generators.seed) {
      messages, seed throws in
      var rng = SplitMix64(seed: seed)
      let stream = messages.flatMap { $0.frame.encoded() }
      let (outputs, counters) = Self.decode(Self.randomChunks(stream, maxChunk: 64, rng: &rng))
      #expect(outputs == messages.map { .frame($0.frame) })
      #expect(counters.frames == UInt32(messages.count))
    }
  }

  @Test func resetForgetsAPartialFrame() {
    let frame = Frame(sequence: 1, type: MessageType.ping.rawValue, nonce: 1, payload: [1, 2, 3])
    var decoder = FrameDecoder()
    let wire = frame.encoded()
    #expect(decoder.feed(wire.prefix(5)).isEmpty)
    decoder.reset()
    #expect(decoder.feed(wire) == [.frame(frame)], "the stale half did not corrupt the next frame")
    // And an over-long run being discarded is forgotten too.
    #expect(decoder.feed([UInt8](repeating: 9, count: 2000)).isEmpty)
    decoder.reset()
    #expect(decoder.feed(wire) == [.frame(frame)])
    #expect(decoder.counters.overlong == 0)
  }
}
