import Testing

@testable import CallAlertDaemon

/// The splitter hands over lines as the bytes received and never holds more than one line's limit, fed
/// byte by byte, all at once or a line at a time.
@Suite("Line splitter")
struct LineSplitterTests {
  /// The lines of `input`, fed in pieces of `piece` bytes, then finished.
  static func split(_ input: [UInt8], piece: Int, maxLength: Int = 256 * 1024) -> [LineSplitter.Line] {
    var splitter = LineSplitter(maxLength: maxLength)
    var lines: [LineSplitter.Line] = []
    var start = 0
    while start < input.count {
      let end = min(start + piece, input.count)
      lines += splitter.feed(input[start..<end])
      start = end
    }
    return lines + splitter.finish()
  }

  @Test(arguments: [1, 3, 1 << 20])
  func invalidUTF8ReachesTheParserUnchanged(piece: Int) {
    let input: [UInt8] = [0x61, 0xFF, 0xFE, 0x0A, 0xC3, 0x28, 0x0D, 0x0A, 0x62]
    #expect(
      Self.split(input, piece: piece) == [
        .line([0x61, 0xFF, 0xFE], number: 1), .line([0xC3, 0x28], number: 2), .line([0x62], number: 3),
      ])
  }

  @Test(arguments: [1, 7, 4096, 1 << 24])
  func aLineOverTheLimitIsSkippedAndTheNextOneKept(piece: Int) {
    let input = [UInt8](repeating: 0x78, count: 100_000) + Array("\nok\n".utf8)
    #expect(
      Self.split(input, piece: piece, maxLength: 1000) == [.tooLong(number: 1), .line(Array("ok".utf8), number: 2)])
  }

  @Test func aLineOfExactlyTheLimitIsKept() {
    let input = [UInt8](repeating: 0x78, count: 10) + [0x0A]
    #expect(Self.split(input, piece: 3, maxLength: 10) == [.line([UInt8](repeating: 0x78, count: 10), number: 1)])
  }

  @Test func theBufferNeverHoldsMoreThanTheLimit() {
    var splitter = LineSplitter(maxLength: 1000)
    let chunk = [UInt8](repeating: 0x78, count: 64 * 1024)
    var most = 0
    for _ in 0..<160 {  // 10 MiB without a newline
      #expect(splitter.feed(chunk).isEmpty)
      most = max(most, splitter.bufferedByteCount)
    }
    #expect(most <= 1000)
    #expect(splitter.finish() == [.tooLong(number: 1)])
  }

  @Test func textDecodesForCallersThatTakeStrings() {
    #expect(LineSplitter.Line.line(Array("hé".utf8), number: 1).text == "hé")
    #expect(LineSplitter.Line.tooLong(number: 1).text == nil)
  }
}
