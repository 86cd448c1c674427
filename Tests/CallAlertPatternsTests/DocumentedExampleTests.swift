import CallAlertPatterns
import CallAlertProtocol
import Testing

/// docs/PATTERNS.md's example is compiled here, so the documentation and the compiler cannot drift.
@Suite struct DocumentedExampleTests {
  @Test func theExampleCompilesToItsGoldenBytes() throws {
    let built = try PatternFile.build(text: try documentedExample("office.yaml"), file: "office.yaml")
    #expect(built.warnings.isEmpty)
    #expect(
      built.file.listing == """
        version 3, 9 slots, 1441 bytes
        slot 0  office  34 steps  3000 ms loop, repeats until the cap
        slot 1  us-ring  81 steps  6000 ms loop, repeats until the cap
        slot 2  nokia  26 steps  2933 ms
        slot 3  buzz  18 steps  2000 ms loop, repeats until the cap
        slot 4  mine  4 steps  2000 ms loop, repeats until the cap
        slot 8  double-beep  4 steps  3000 ms (loop repeats 2x)
        """)
    #expect(built.bytes.count == 1_441)
    #expect(built.crc == 0x7886_F02B)
    #expect(built.bytes.suffix(4) == [0x2B, 0xF0, 0x86, 0x78])
    let markdown = try documentation()
    #expect(markdown.contains("1 441-byte table with CRC-32C\n0x7886F02B"))
    #expect(markdown.contains(built.file.listing))
  }

  @Test func theDocumentedDiagnosticsAreWhatTheCheckerSays() throws {
    let diagnostics = PatternFile.check(text: try documentedExample("broken.yaml"), file: "broken.yaml")
    let markdown = try documentedExample("broken.yaml.out")
    #expect(descriptions(diagnostics).joined(separator: "\n") + "\n" == markdown)
  }
}
