import CallAlertProtocol
import Testing

/// Frames, payloads and a table written out byte by byte from the layouts in the sources' doc comments, compared
/// with the vector files and the codec: the check that the generated vectors mean what the spec says.
@Suite struct HandCheckedLayoutTests {
  /// The messages.json entry named `name`.
  static func vector(_ name: String) throws -> MessageVector {
    let entry = try VectorFiles.entries("messages.json", "vectors").first { $0.name == name }
    return try MessageVector(try #require(entry, "no vector \(name)").json)
  }

  @Test func pingFrameByHand() throws {
    let vector = try Self.vector("ping")
    // version 1, flags 0, sequence 1 (LE), type PING 0x02, nonce 0x1A2B3C4D (LE), length 4 (LE): 11 bytes.
    let header: [UInt8] = [0x01, 0x00, 0x01, 0x00, 0x02, 0x4D, 0x3C, 0x2B, 0x1A, 0x04, 0x00]
    let payload: [UInt8] = [0xCA, 0x11, 0x00, 0xFF]
    let crc = ReferenceCodec.le32(ReferenceCodec.crc32c(header + payload))
    #expect(vector.raw == header + payload + crc)
    #expect(vector.raw.count == 11 + 4 + 4)
    try #require(!crc.contains(0), "the hand-written COBS below assumes a CRC without zero bytes")
    // COBS: a code byte before each run, ending at the zeros at raw offsets 1, 3, 10 and 13, then the delimiter.
    let wire: [UInt8] =
      [0x02, 0x01, 0x02, 0x01, 0x07, 0x02, 0x4D, 0x3C, 0x2B, 0x1A, 0x04, 0x03, 0xCA, 0x11, 0x06, 0xFF] + crc + [0x00]
    #expect(vector.wire == wire)
    #expect(Message.command(.ping(payload)).frame(sequence: 1, nonce: 0x1A2B_3C4D).encoded() == wire)
  }

  @Test func getStatusFrameByHand() throws {
    let vector = try Self.vector("get_status")
    let header: [UInt8] = [0x01, 0x00, 0x04, 0x00, 0x04, 0x4D, 0x3C, 0x2B, 0x1A, 0x00, 0x00]
    #expect(vector.raw == header + ReferenceCodec.le32(ReferenceCodec.crc32c(header)))
    #expect(Frame.headerSize + Frame.trailerSize == vector.raw.count)
  }

  @Test func eventAckIsAnEmptyResponseFrame() throws {
    let vector = try Self.vector("event_ack_button")
    let header: [UInt8] = [0x01, 0x01, 0x01, 0x00, 0x81, 0x4D, 0x3C, 0x2B, 0x1A, 0x00, 0x00]
    #expect(vector.raw == header + ReferenceCodec.le32(ReferenceCodec.crc32c(header)))
  }

  /// Payloads written out from the layouts, field by field (little-endian).
  static let handWrittenPayloads: [(name: String, hex: String)] = [
    ("hello", "01" + "01" + "0004" + "08" + "00"),
    ("hello_trace_actuators", "01" + "02" + "0001" + "04" + "01"),
    ("play_slot", "07000000" + "5046" + "00" + "00" + "02"),
    ("play_with_options", "07000000" + "5046" + "01" + "00" + "02"),
    (
      "play_inline_pattern",
      "08000000" + "0000" + "04" + "01" + "00" + "03" + "0100" + "0300" + "6400" + "0000" + "00" + "ff" + "00" + "c800"
        + "d007" + "80" + "00" + "01" + "9600" + "0000" + "00" + "00" + "00"
    ),
    ("stop_token", "07000000"),
    ("stop_all", "ffffffff"),
    ("lease", "b80b"),
    ("set_indicator_on", "01" + "01" + "0000" + "0000"),
    ("set_indicator_blink", "00" + "02" + "f401" + "dc05"),
    ("table_read_staged", "01" + "10000000" + "1800"),
    ("reset", "52535421"),
    ("event_boot_after_reset", "01" + "01"),
    ("event_button_long_press", "00" + "01" + "e803"),
    ("event_play_ended_cap", "08000000" + "02" + "30750000"),
    ("event_fault_motor_on_time", "01" + "401f0000"),
    ("nak_sequence_gap", "06" + "08000000"),
    ("nak_unsupported_version", "03" + "01010000"),
    ("actuators_notification", "40e20100" + "8c0a" + "c8" + "01" + "01" + "ff"),
    ("reply_playing_capped", "3075"),
    ("reply_stopped", "01"),
    ("reply_ok_to_lease", ""),
    ("reply_table_progress", "30000000"),
    (
      "reply_status_playing_slot",
      "40e20100" + "07000000" + "00" + "02" + "dc050000" + "7440" + "c409" + "8c0a" + "c8" + "01" + "01" + "ff" + "02"
        + "00" + "00000000" + "00000000" + "2a000000" + "01000000" + "02000000" + "00000000" + "03000000" + "00000000"
    ),
    (
      "reply_status_idle_receiving",
      "28230000" + "00000000" + "ff" + "00" + "00000000" + "0000" + "0000" + "0000" + "00" + "00" + "01" + "00" + "00"
        + "01" + "40000000" + "8b000000" + String(repeating: "0", count: 48)
    ),
  ]

  @Test(arguments: handWrittenPayloads.map(\.name))
  func payloadMatchesTheHandWrittenLayout(name: String) throws {
    let expected = try #require(Self.handWrittenPayloads.first { $0.name == name }).hex
    #expect(hexString(try Self.vector(name).payload) == expected)
  }

  @Test func tableBeginCarriesSizeAndTrailer() throws {
    let trailer = hexString(ReferenceCodec.le32(ReferenceCodec.crc32c(VectorCatalog.sampleTableBytes.dropLast(4))))
    #expect(hexString(try Self.vector("table_begin").payload) == "8b000000" + trailer)
    #expect(hexString(try Self.vector("table_commit").payload) == trailer)
  }

  @Test func infoPayloadByHand() throws {
    let payload = try Self.vector("reply_info_to_hello").payload
    let identity = "01" + "01" + "01" + "01" + "04" + "02" + "4d3c2b1a" + "0a" + hexString(ascii("CA1-000042"))
    let capabilities =
      "01" + "9001" + "8813" + "01" + "02" + "01" + "10" + "4000" + "0004" + "08" + "00200000" + "401f" + "60ea" + "32"
      + "b80b"
    let table = "07000000" + hexString(ReferenceCodec.le32(VectorCatalog.sampleTableCRC)) + "8b000000"
    #expect(hexString(payload) == identity + capabilities + table)
    // Identity 11, serial 10, capabilities 25, table 12. The fifteen capability fields listed in BoardInfo.swift add
    // up to 25 bytes, although its doc comments say "26 bytes" (reported to the owner).
    #expect(payload.count == 11 + 10 + 25 + 12)
  }

  @Test func sampleTableByHand() throws {
    let table = try VectorFiles.entries("patterns.json", "tables")[0].json.hexBytes("hex")
    let header = "43415054" + "01" + "03" + "0000" + "07000000" + "8b000000"
    let entry0 = "58000000" + "1400" + "0000" + hexString(ascii("ring")) + String(repeating: "00", count: 12)
    let entry1 = String(repeating: "00", count: 24)
    let entry2 = "6c000000" + "1b00" + "0000" + hexString(ascii("vibrate")) + String(repeating: "00", count: 9)
    let ring =
      "00" + "ff" + "0000" + "0200" + "9001" + "7003" + "ff" + "c8" + "03" + "5802" + "0000" + "00" + "00" + "00"
    let vibrate =
      "00" + "03" + "0100" + "0300" + "6400" + "0000" + "00" + "ff" + "00" + "c800" + "d007" + "80" + "00" + "01"
      + "9600"
      + "0000" + "00" + "00" + "00"
    let body = header + entry0 + entry1 + entry2 + ring + vibrate
    #expect(hexString(table.dropLast(4)) == body)
    #expect(table.count == 139)
    #expect(CRC32C.checksum(table) == 0x4867_4BC7, "the transfer CRC of any sealed table is the CRC-32C residue")
  }
}
