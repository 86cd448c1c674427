import CallAlertProtocol
import Testing

/// The byte dumps printed in Protocol/PROTOCOL.md (§12.2, §18), copied here verbatim, against the vector files and
/// the codec: the spec, the vectors and the code must agree (PROTOCOL.md §17).
@Suite struct SpecExampleTests {
  /// Hex from a spec dump, spaces allowed (a typo gives no bytes, which fails the comparison it is used in).
  static func dump(_ text: String) -> [UInt8] { (try? bytes(hex: String(text.filter { $0 != " " }))) ?? [] }

  /// The messages.json entry named `name`.
  static func vector(_ name: String) throws -> MessageVector { try HandCheckedLayoutTests.vector(name) }

  @Test func pingHiAndItsAnswer() throws {
    // §18.1
    let ping = try Self.vector("spec_18_1_ping_hi")
    #expect(ping.raw == Self.dump("01 00 01 00 02 78 56 34 12 02 00 68 69 A7 50 B8 07"))
    #expect(ping.wire == Self.dump("02 01 02 01 07 02 78 56 34 12 02 07 68 69 A7 50 B8 07 00"))
    #expect(CRC32C.checksum(ping.raw.prefix(13)) == 0x07B8_50A7)
    #expect(LinkTiming.standard.timeout(bytesAhead: ping.wire.count) == 103, "\"100 + 2 × 19 / 11 = 103 ms\"")
    let pong = try Self.vector("spec_18_1_pong_hi")
    #expect(pong.raw == Self.dump("01 01 01 00 02 78 56 34 12 02 00 68 69 97 84 C9 36"))
    #expect(pong.wire == Self.dump("04 01 01 01 07 02 78 56 34 12 02 07 68 69 97 84 C9 36 00"))
  }

  @Test func otherFramesOfSection18_2() throws {
    let hello = try Self.vector("hello")
    #expect(hello.raw == Self.dump("01 00 00 00 01 00 00 00 00 06 00 01 01 00 04 08 00 E7 5C 55 D2"))
    #expect(hello.wire == Self.dump("02 01 01 01 02 01 01 01 01 02 06 03 01 01 03 04 08 05 E7 5C 55 D2 00"))
    #expect(try Self.vector("spec_18_2_play_slot_0").payload == Self.dump("07 00 00 00 00 00 00 00 00"))
    #expect(
      try Self.vector("spec_18_2_nak_stale_nonce_to_lease").raw
        == Self.dump("01 03 29 00 12 DE C0 17 5A 05 00 05 00 00 00 00 F1 71 25 8E"))
    #expect(
      try Self.vector("spec_18_2_ack_of_play_ended").wire
        == Self.dump("04 01 01 03 06 82 DE C0 17 5A 01 05 E7 15 20 78 00"))
    #expect(try Self.vector("reset").payload == Self.dump("52 53 54 21"))
  }

  @Test func exampleTableOfSection12_2() throws {
    let entry = try #require(
      try VectorFiles.entries("patterns.json", "tables").first { $0.name == "spec_example_two_slots" })
    let table = try entry.json.hexBytes("hex")
    let dump = Self.dump(
      "43 41 50 54 01 02 00 00 07 00 00 00 58 00 00 00" + "40 00 00 00 14 00 00 00 72 69 6E 67 00 00 00 00"
        + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00" + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        + "00 FF 00 00 02 00 90 01 D0 07 C8 FF 01 58 02 00" + "00 00 00 00 C4 8C 3A B0")
    #expect(table == dump)
    #expect(try entry.json.integer("crc", as: UInt32.self) == 0xB03A_8CC4)
    #expect(VectorCatalog.specExampleTable.encoded() == dump)
    #expect(try PatternTable.decode(dump) == VectorCatalog.specExampleTable)
  }

  @Test func deadlineExamplesOfSection5_3() {
    #expect(LinkTiming.standard.timeout(bytesAhead: 1045) == 290, "a 1 045-byte frame alone")
    #expect(LinkTiming.standard.timeout(bytesAhead: 4 * 1045) == 860, "four of them, for the last")
  }

  /// PROTOCOL.md §8.1: HELLO's `bad_payload` detail is the offset of the offending field: 0 for
  /// `min_version` = 0, 1 for `min_version > max_version`.
  @Test
  func helloWithMinVersionZeroIsRefusedAtTheDocumentedOffset() {
    let payload: [UInt8] = [0, 1, 0x00, 0x04, 8, 0]
    let frame = Frame(sequence: 0, type: MessageType.hello.rawValue, nonce: 0, payload: payload)
    #expect(throws: MessageError.self) { try Message.decode(frame) }
    do throws(MessageError) {
      _ = try Message.decode(frame)
    } catch {
      #expect(error.nak == Nak(.badPayload, detail: 0), "PROTOCOL.md §8.1: detail 0 for min_version = 0")
    }
  }
}
