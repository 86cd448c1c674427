import Testing

/// The committed vector files are exactly what ``VectorCatalog`` generates. With `CALLALERT_REGENERATE_VECTORS=1`
/// this test rewrites them instead (the other vector tests then check the freshly generated content).
@Suite struct VectorFileTests {
  @Test(arguments: VectorCatalog.fileNames)
  func vectorFileMatchesTheGenerator(name: String) throws {
    let generated = try VectorCatalog.document(named: name).rendered()
    if VectorFiles.isRegenerating {
      try VectorFiles.write(generated, to: name)
      return
    }
    let onDisk = try VectorFiles.text(name)
    #expect(
      onDisk == generated,
      "Protocol/vectors/\(name) differs from the generator; run with \(VectorFiles.regenerateVariable)=1 and review")
  }

  @Test(arguments: VectorCatalog.fileNames)
  func renderedFileParsesBackToTheSameDocument(name: String) throws {
    let document = try VectorCatalog.document(named: name)
    #expect(try JSONValue.parse(document.rendered()) == document)
  }

  @Test func entryNamesAreUniqueWithinEachList() throws {
    let lists = [
      ("crc-cobs.json", "crc32c"), ("crc-cobs.json", "cobs"), ("messages.json", "vectors"), ("malformed.json", "cases"),
      ("patterns.json", "patterns"), ("patterns.json", "invalid_patterns"), ("patterns.json", "tables"),
      ("patterns.json", "invalid_tables"),
    ]
    for (file, key) in lists {
      let names = try VectorFiles.entries(file, key).map(\.name)
      #expect(Set(names).count == names.count, "duplicate names in \(file) \(key)")
      #expect(!names.isEmpty, "\(file) \(key) is empty")
    }
  }

  @Test func jsonReaderHandlesEscapesAndRejectsFractions() throws {
    let parsed = try JSONValue.parse(#"{"a": "x\"y\\z\u0041\n", "b": [-3, true, null]}"#)
    #expect(parsed["a"] == .string("x\"y\\zA\n"))
    #expect(parsed["b"] == [-3, true, nil])
    #expect(throws: VectorFormatError.self) { try JSONValue.parse("[1.5]") }
    #expect(throws: VectorFormatError.self) { try JSONValue.parse("{\"a\": 1,}") }
  }
}
