import CallAlertPatterns
import CallAlertProtocol
import CallAlertVirtualBoard
import Testing

@Suite struct RoundTripTests {
  /// Decompiling a table and compiling the text gives the same table, byte for byte.
  func roundTrip(_ table: PatternTable) throws {
    let yaml = PatternFile.decompile(table)
    let file: PatternFile
    do {
      file = try PatternFile.parse(text: yaml, file: "decompiled.yaml")
    } catch {
      Issue.record("decompiled text does not parse:\n\(error)\n\(yaml)")
      return
    }
    #expect(file.compile() == table)
    #expect(file.compileBytes() == table.encoded())
  }

  @Test(arguments: RingCadence.allCases)
  func cadencesRoundTrip(_ cadence: RingCadence) throws {
    try roundTrip(
      PatternTable(version: 1, slots: [.init(name: Array(cadence.rawValue.utf8), pattern: cadence.pattern())]))
  }

  @Test func builtInsRoundTripTogether() throws {
    try roundTrip(BuiltInPatterns.file.compile())
  }

  @Test func oddTablesRoundTrip() throws {
    let step = PatternStep(durationMs: 65_535, buzzerHz: 0, buzzerVolume: 9, motor: 1, leds: 0xFF)
    try roundTrip(
      PatternTable(
        version: UInt32.max,
        slots: [
          nil,
          .init(
            name: Array("a \"quoted\" \\ #name".utf8.prefix(16)), pattern: Pattern(steps: [step], repeatCount: 254)),
          .init(name: [], pattern: Pattern(steps: [PatternStep(durationMs: 1, buzzerHz: 65_535, buzzerVolume: 0)])),
          .init(name: Array("dup".utf8), pattern: Pattern(steps: [step, step], loopStart: 1)),
          .init(name: Array("dup".utf8), pattern: Pattern(steps: [step], repeatCount: 255)), nil, nil,
        ]))
    try roundTrip(PatternTable(version: 0, slots: [nil, nil]))
  }

  /// Property: random tables (seeded, so a failure replays) survive decompile then compile.
  @Test(arguments: 0..<200)
  func randomTablesRoundTrip(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let slotCount = Int.random(in: 1...PatternTable.maxSlots, using: &random)
    var slots: [PatternTable.Slot?] = []
    for _ in 0..<slotCount {
      guard Int.random(in: 0..<3, using: &random) > 0 else {
        slots.append(nil)
        continue
      }
      let steps = (0..<Int.random(in: 1...12, using: &random)).map { _ in
        PatternStep(
          durationMs: UInt16.random(in: 1...UInt16.max, using: &random),
          buzzerHz: Bool.random(using: &random) ? 0 : UInt16.random(in: 0...UInt16.max, using: &random),
          buzzerVolume: UInt8.random(in: 0...UInt8.max, using: &random),
          motor: Bool.random(using: &random) ? 0 : UInt8.random(in: 0...UInt8.max, using: &random),
          leds: UInt8.random(in: 0...UInt8.max, using: &random))
      }
      let name = (0..<Int.random(in: 0...16, using: &random)).map { _ in UInt8.random(in: 0x20...0x7E, using: &random) }
      let pattern = Pattern(
        steps: steps, repeatCount: UInt8.random(in: 0...UInt8.max, using: &random),
        loopStart: UInt16.random(in: 0..<UInt16(steps.count), using: &random))
      slots.append(.init(name: name, pattern: pattern))
    }
    try roundTrip(PatternTable(version: UInt32.random(in: 0...UInt32.max, using: &random), slots: slots))
  }

  @Test func decompilingBytesChecksThemFirst() throws {
    let bytes = BuiltInPatterns.file.compileBytes()
    #expect(try PatternFile.decompile(bytes: bytes) == PatternFile.decompile(try PatternTable.decode(bytes)))
    var corrupted = bytes
    corrupted[20] ^= 1
    #expect(throws: PayloadError.self) { try PatternFile.decompile(bytes: corrupted) }
  }

  @Test func decompiledTextIsReadable() {
    let table = PatternTable(
      version: 2,
      slots: [
        nil,
        .init(
          name: Array("beep".utf8),
          pattern: Pattern(
            steps: [
              PatternStep(durationMs: 120, buzzerHz: 2_000, buzzerVolume: 153, leds: 1),
              PatternStep(durationMs: 80),
              PatternStep(durationMs: 680, motor: 255, leds: 0b110),
            ],
            repeatCount: 2, loopStart: 1)),
        nil,
      ])
    #expect(
      PatternFile.decompile(table) == """
        # CallAlert pattern table, decompiled: version 2, 3 slots, 119 bytes, CRC-32C 0x\(crcHex(table)).
        # Compiling this file gives the same table, byte for byte.
        version: 2
        slots: 3
        patterns:
          - name: "beep"
            slot: 1
            # 3 steps, 2400 ms
            repeat: 2
            loop_from: 1
            steps:
              - { ms: 120, hz: 2000, volume: 153, led: on }
              - { ms: 80 }
              - { ms: 680, motor: 255, led: [1, 2] }

        """)
  }

  private func crcHex(_ table: PatternTable) -> String {
    let crc = table.encoded().suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let text = String(crc, radix: 16, uppercase: true)
    return String(repeating: "0", count: 8 - text.count) + text
  }

  /// The same file always compiles to the same bytes.
  @Test func compilingIsDeterministic() throws {
    let text = try documentedExample("office.yaml")
    let first = try PatternFile.parse(text: text, file: "a.yaml").compileBytes()
    let second = try PatternFile.parse(text: text, file: "b.yaml").compileBytes()
    #expect(first == second)
  }
}
