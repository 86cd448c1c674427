import CallAlertProtocol
import CallAlertVirtualBoard
import PropertyBased
import Testing

/// COBS and CRC-32C over random bytes: round trips, no 0x00 in COBS output, the size bound, and agreement with the
/// independent reference implementations.
@Suite struct COBSPropertyTests {
  @Test func cobsRoundTripsWithoutZerosWithinTheBound() async {
    await propertyCheck(count: 1000, input: Generators.bytes(maxCount: 1100)) { raw throws in
      var encoded: [UInt8] = []
      COBS.encode(raw, into: &encoded)
      #expect(!encoded.contains(0), "COBS output holds no 0x00")
      #expect(encoded.count <= COBS.maxEncodedCount(raw.count), "\(encoded.count) > bound for \(raw.count)")
      #expect(encoded.count >= raw.count + 1)
      #expect(encoded == ReferenceCodec.cobs(raw), "same as the reference encoder")
      var decoded: [UInt8] = []
      try COBS.decode(encoded, into: &decoded)
      #expect(decoded == raw)
    }
  }

  @Test func maxEncodedCountIsReachedByZeroFreeInput() {
    for count in [0, 1, 253, 254, 255, 507, 508, 509, 1039, 1044] {
      var encoded: [UInt8] = []
      COBS.encode([UInt8](repeating: 0x42, count: count), into: &encoded)
      #expect(encoded.count == COBS.maxEncodedCount(count), "count \(count)")
    }
  }

  @Test func crcAgreesWithTheBitwiseDefinitionAndAnySplit() async {
    await propertyCheck(count: 500, input: Generators.bytes(maxCount: 600), Generators.seed) { bytes, seed throws in
      var rng = SplitMix64(seed: seed)
      #expect(CRC32C.checksum(bytes) == ReferenceCodec.crc32c(bytes))
      let split = rng.draw(0...bytes.count)
      var crc = CRC32C()
      crc.update(bytes[..<split])
      crc.update(bytes[split...])
      #expect(crc.value == CRC32C.checksum(bytes))
    }
  }

  @Test func anySingleBitFlipInAFrameIsCaught() async {
    await propertyCheck(count: 300, input: Generators.framedMessage, Generators.seed) { framed, seed throws in
      var rng = SplitMix64(seed: seed)
      var raw = framed.frame.rawBytes()
      raw[rng.draw(0...raw.count - 1)] ^= 1 << UInt8(rng.draw(0...7))
      #expect(throws: FrameError.self) { try Frame.parse(raw: raw) }
    }
  }
}
