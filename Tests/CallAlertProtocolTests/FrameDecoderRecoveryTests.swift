import CallAlertProtocol
import PropertyBased
import Testing

/// The stream decoder resynchronises at the next 0x00 whatever came before it.
@Suite struct FrameDecoderRecoveryTests {
  @Test func goodFrameAfterRandomGarbageAndADelimiterIsDelivered() async {
    await propertyCheck(count: 500, input: Generators.bytes(maxCount: 3000), Generators.framedMessage) {
      garbage, framed throws in
      var decoder = FrameDecoder()
      let outputs = decoder.feed(garbage + [0] + framed.frame.encoded())
      #expect(outputs.last == .frame(framed.frame), "the frame after the garbage is delivered")
      // Whatever the garbage produced was dropped (a random block passing the CRC is a 2^-32 event).
      #expect(outputs.dropLast().allSatisfy { if case .dropped = $0 { true } else { false } })
      #expect(decoder.counters.frames == 1)
      let drops = decoder.counters.crc + decoder.counters.framing + decoder.counters.overlong
      #expect(Int(drops) == outputs.count - 1, "every drop is counted once")
    }
  }

  @Test func frameSurvivesGarbageOfEveryLengthAroundTheBufferLimit() {
    let framed = Frame(sequence: 9, type: MessageType.ping.rawValue, nonce: 3, payload: [0xAB])
    let decoder = FrameDecoder(maxPayload: Frame.minimumMaxPayload)
    for length in (decoder.maxEncoded - 2)...(decoder.maxEncoded + 2) {
      var copy = decoder
      let outputs = copy.feed([UInt8](repeating: 0x11, count: length) + [0] + framed.encoded())
      #expect(outputs.last == .frame(framed), "garbage of \(length)")
      #expect(outputs.count == 2)
      #expect(copy.counters.overlong == (length > decoder.maxEncoded ? 1 : 0), "garbage of \(length)")
    }
  }
}
