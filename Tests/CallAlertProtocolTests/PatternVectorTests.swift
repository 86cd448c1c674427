import CallAlertProtocol
import Testing

/// patterns.json: pattern encodings, the sample table, and invalid patterns and tables with their exact errors.
@Suite struct PatternVectorTests {
  @Test(arguments: try VectorFiles.entries("patterns.json", "patterns"))
  func patternEncodesAndDecodes(vector: NamedVector) throws {
    let pattern = try VectorJSON.pattern(vector.json.member("pattern"))
    let bytes = try vector.json.hexBytes("hex")
    #expect(hexString(pattern.encoded()) == hexString(bytes))
    #expect(pattern.encodedSize == bytes.count)
    #expect(try Pattern.decode(bytes) == pattern)
    let total = try vector.json.member("total_duration_ms")
    #expect(pattern.totalDurationMs.map { JSONValue.int($0) } ?? .null == total)
    #expect(pattern.loopDurationMs == (try vector.json.integer("loop_duration_ms", as: UInt32.self)))
  }

  @Test(arguments: try VectorFiles.entries("patterns.json", "invalid_patterns"))
  func invalidPatternIsRejectedAtTheDocumentedField(vector: NamedVector) throws {
    let bytes = try vector.json.hexBytes("hex")
    do throws(PayloadError) {
      let pattern = try Pattern.decode(bytes)
      Issue.record("decoded \(pattern)")
    } catch {
      #expect(VectorJSON.json(error) == (try vector.json.member("error")))
    }
  }

  @Test(arguments: try VectorFiles.entries("patterns.json", "tables"))
  func tableEncodesAndDecodes(vector: NamedVector) throws {
    let table = try VectorJSON.table(vector.json.member("table"))
    let bytes = try vector.json.hexBytes("hex")
    #expect(hexString(table.encoded()) == hexString(bytes))
    #expect(try PatternTable.decode(bytes) == table)
    #expect(bytes.count == (try vector.json.integer("size", as: Int.self)))
    let crc: UInt32 = try vector.json.integer("crc")
    #expect(Array(bytes.suffix(4)) == ReferenceCodec.le32(crc), "the table ends in its CRC, little-endian")
    #expect(CRC32C.checksum(bytes.dropLast(4)) == crc)
    #expect(CRC32C.checksum(bytes) == 0x4867_4BC7, "the CRC over a sealed table is the residue (PROTOCOL.md §12.4)")

    let header = try PatternTableHeader.read(bytes)
    let expectedHeader = try vector.json.member("header")
    #expect(Array(bytes.prefix(4)) == ascii(try expectedHeader.string("magic")))
    #expect(bytes[4] == (try expectedHeader.integer("format", as: UInt8.self)))
    #expect(header.slotCount == (try expectedHeader.integer("slot_count", as: UInt8.self)))
    #expect(header.version == (try expectedHeader.integer("version", as: UInt32.self)))
    #expect(header.size == (try expectedHeader.integer("size", as: UInt32.self)))
    #expect(header.crc == crc)
    for (index, expected) in try vector.json.array("directory").enumerated() {
      let entry = try header.entry(index, in: bytes)
      #expect(entry.at == PatternTable.headerSize + index * PatternTable.entrySize)
      #expect(entry.offset == (try expected.integer("offset", as: Int.self)))
      #expect(entry.length == (try expected.integer("length", as: Int.self)))
      #expect(entry.name == ascii(try expected.string("name")))
    }
  }

  @Test(arguments: try VectorFiles.entries("patterns.json", "invalid_tables"))
  func invalidTableIsRejectedAtTheDocumentedField(vector: NamedVector) throws {
    let bytes = try vector.json.hexBytes("hex")
    do throws(PayloadError) {
      let table = try PatternTable.decode(bytes)
      Issue.record("decoded \(table)")
    } catch {
      #expect(VectorJSON.json(error) == (try vector.json.member("error")))
    }
  }

  @Test func tableTransferInMessagesCarriesTheSampleTablesTrailer() throws {
    // PROTOCOL.md §8.9, §8.11, §12.4: TABLE_BEGIN and TABLE_COMMIT carry the table's own CRC, its last 4 bytes.
    let table = try VectorFiles.entries("patterns.json", "tables")[0].json
    let messages = try VectorFiles.entries("messages.json", "vectors")
    let begin = try #require(messages.first { $0.name == "table_begin" }).json.member("fields")
    let commit = try #require(messages.first { $0.name == "table_commit" }).json.member("fields")
    let committed = try #require(messages.first { $0.name == "reply_table_committed" }).json.member("fields")
    let trailer: UInt32 = try table.integer("crc")
    #expect(try begin.integer("size", as: Int.self) == (try table.integer("size", as: Int.self)))
    #expect(try begin.integer("crc", as: UInt32.self) == trailer)
    #expect(try commit.integer("crc", as: UInt32.self) == trailer)
    #expect(try committed.integer("table_crc", as: UInt32.self) == trailer)
    #expect(Array(try table.hexBytes("hex").suffix(4)) == ReferenceCodec.le32(trailer))
  }
}
