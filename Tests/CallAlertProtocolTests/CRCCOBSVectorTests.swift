import CallAlertProtocol
import Testing

/// crc-cobs.json against the codec's CRC32C and COBS, plus published values written out by hand.
@Suite struct CRCCOBSVectorTests {
  @Test(arguments: try VectorFiles.entries("crc-cobs.json", "crc32c"))
  func crcMatchesTheVector(vector: NamedVector) throws {
    let input = try vector.json.hexBytes("input_hex")
    let expected = try vector.json.integer("crc", as: UInt32.self)
    #expect(CRC32C.checksum(input) == expected)
    var incremental = CRC32C()
    for byte in input { incremental.update(byte) }
    #expect(incremental.value == expected, "byte-at-a-time update")
    #expect(try vector.json.string("crc_le_hex") == hexString(ReferenceCodec.le32(expected)))
  }

  @Test(arguments: try VectorFiles.entries("crc-cobs.json", "cobs"))
  func cobsMatchesTheVector(vector: NamedVector) throws {
    let raw = try vector.json.hexBytes("raw_hex")
    let encoded = try vector.json.hexBytes("encoded_hex")
    var output: [UInt8] = []
    COBS.encode(raw, into: &output)
    #expect(hexString(output) == hexString(encoded))
    #expect(!output.contains(0))
    #expect(COBS.maxEncodedCount(raw.count) == (try vector.json.integer("max_encoded_count", as: Int.self)))
    #expect(output.count <= COBS.maxEncodedCount(raw.count))
    var decoded: [UInt8] = []
    try COBS.decode(encoded, into: &decoded)
    #expect(decoded == raw)
    for alternative in try vector.json["also_decodes_from_hex"]?.array() ?? [] {
      try COBS.decode(try bytes(hex: alternative.string()), into: &decoded)
      #expect(decoded == raw, "the shorter encoding without the final empty block decodes too")
    }
  }

  @Test func crcMatchesPublishedValues() {
    // The reveng catalogue's check value and RFC 3720 appendix B.4, written out independently of the vector files.
    #expect(CRC32C.checksum(ascii("123456789")) == 0xE306_9283)
    #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
    #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
    #expect(CRC32C.checksum((0..<32).reversed().map { UInt8($0) }) == 0x113F_DB5C)
    #expect(CRC32C.checksum([UInt8]()) == 0)
  }

  @Test func crcOfBytesFollowedByTheirOwnCRCIsTheConstantResidue() {
    // The reason TABLE_BEGIN's crc (over the table including its own CRC) is the same for every valid table.
    for input in [ascii("123456789"), [0x00], VectorCatalog.sampleTableBytes.dropLast(4).map { $0 }] {
      let sealed = input + ReferenceCodec.le32(CRC32C.checksum(input))
      #expect(CRC32C.checksum(sealed) == 0x4867_4BC7)
    }
  }

  @Test func cobsMatchesPublishedExamples() throws {
    // Cheshire and Baker's encoding of short inputs (also the Wikipedia examples 1-6), written out by hand.
    let examples: [([UInt8], [UInt8])] = [
      ([0x00], [0x01, 0x01]),
      ([0x00, 0x00], [0x01, 0x01, 0x01]),
      ([0x00, 0x11, 0x00], [0x01, 0x02, 0x11, 0x01]),
      ([0x11, 0x22, 0x00, 0x33], [0x03, 0x11, 0x22, 0x02, 0x33]),
      ([0x11, 0x22, 0x33, 0x44], [0x05, 0x11, 0x22, 0x33, 0x44]),
      ([0x11, 0x00, 0x00, 0x00], [0x02, 0x11, 0x01, 0x01, 0x01]),
      ([], [0x01]),
    ]
    for (raw, encoded) in examples {
      var output: [UInt8] = []
      COBS.encode(raw, into: &output)
      #expect(output == encoded, "encode \(hexString(raw))")
      var decoded: [UInt8] = []
      try COBS.decode(encoded, into: &decoded)
      #expect(decoded == raw, "decode \(hexString(encoded))")
    }
  }

  @Test func cobsEncodeAppendsToWhatIsAlreadyThere() {
    var output: [UInt8] = [0xAA]
    COBS.encode([0x11, 0x00], into: &output)
    #expect(output == [0xAA, 0x02, 0x11, 0x01])
  }

  @Test func cobsRejectsBrokenBlocks() {
    var output: [UInt8] = []
    #expect(throws: COBSError.empty) { try COBS.decode([UInt8](), into: &output) }
    #expect(throws: COBSError.truncated(offset: 3)) { try COBS.decode([0x05, 0x11, 0x22], into: &output) }
    #expect(throws: COBSError.zeroInBlock(offset: 1)) { try COBS.decode([0x03, 0x00, 0x11], into: &output) }
    #expect(throws: COBSError.zeroInBlock(offset: 0)) { try COBS.decode([0x00], into: &output) }
  }
}
