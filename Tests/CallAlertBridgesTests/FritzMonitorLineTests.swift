import CallAlertBridges
import Testing

@Suite("FRITZ!Box call monitor lines")
struct FritzMonitorLineTests {
  static let date = FritzDate("23.11.26 21:46:04")!

  @Test(arguments: [
    (
      "23.11.26 21:46:04;RING;0;030123456;987654;SIP0;",
      FritzMonitorLine.Event.ring(caller: "030123456", called: "987654", line: "SIP0")
    ),
    ("23.11.26 21:46:04;RING;0;;987654;POTS;", .ring(caller: "", called: "987654", line: "POTS")),
    ("23.11.26 21:46:04;RING;0;030123456;987654;SIP0", .ring(caller: "030123456", called: "987654", line: "SIP0")),
    (
      "23.11.26 21:46:04;CALL;0;11;987654;030999888;SIP0;",
      .call(extension: "11", ownNumber: "987654", dialled: "030999888", line: "SIP0")
    ),
    ("23.11.26 21:46:04;CONNECT;0;10;030123456;", .connect(extension: "10", number: "030123456")),
    ("23.11.26 21:46:04;DISCONNECT;0;61;", .disconnect(duration: 61)),
  ])
  func readsEachEventAVMDocuments(line: String, event: FritzMonitorLine.Event) throws {
    let parsed = try FritzMonitorLine.parse(Array(line.utf8))
    #expect(parsed == FritzMonitorLine(date: Self.date, connectionID: 0, event: event))
  }

  @Test func theDateIsDayMonthYear() throws {
    let date = try #require(FritzDate("07.02.25 09:05:59"))
    #expect((date.day, date.month, date.year, date.hour, date.minute, date.second) == (7, 2, 25, 9, 5, 59))
    #expect(date.compact == "250207-090559")
  }

  @Test(arguments: [
    ("23.11.26 21:46;RING;0;1;2;SIP0;", 1, "date"),
    ("32.11.26 21:46:04;RING;0;1;2;SIP0;", 1, "date"),
    ("23.11.26 21:46:04;HOLD;0;1;", 19, "not a call monitor event"),
    ("23.11.26 21:46:04;RING;x;1;2;SIP0;", 24, "connection id"),
    ("23.11.26 21:46:04;RING;0;1;", 1, "RING needs"),
    ("23.11.26 21:46:04;DISCONNECT;0;-5;", 32, "duration"),
    ("hello", 1, "expected"),
    ("", 1, "expected"),
  ])
  func namesTheFieldAtFault(line: String, column: Int, words: String) {
    #expect {
      _ = try FritzMonitorLine.parse(Array(line.utf8))
    } throws: { error in
      guard let error = error as? BridgeParseError else { return false }
      return error.column == column && error.message.contains(words)
    }
  }

  @Test func refusesInvalidUTF8() {
    #expect(throws: BridgeParseError.self) { try FritzMonitorLine.parse([0x32, 0xFF, 0x3B]) }
  }
}

@Suite("Line decoder")
struct LineDecoderTests {
  static let stream = Array("a;b\r\nsecond\n\nthird".utf8)

  @Test func byteByByteAllAtOnceAndPerLineAgree() {
    var whole = LineDecoder()
    let all = whole.feed(Self.stream)
    var single = LineDecoder()
    let bytes = Self.stream.flatMap { single.feed([$0]) }
    #expect(all == bytes)
    #expect(
      all == [
        .line(Array("a;b".utf8), offset: 0), .line(Array("second".utf8), offset: 5), .line([], offset: 12),
      ])
    #expect(whole.offset == Self.stream.count)
  }

  /// The decoder cuts whole pieces between newlines; this reference takes one byte at a time, as the first
  /// version did. Random streams of short lines, `\r`, over-long lines and empty lines, fed in random chunks,
  /// must give the same lines and offsets.
  @Test func piecewiseCuttingAgreesWithAByteAtATimeReference() {
    var random = UInt64(0x5EED)
    func next(_ bound: Int) -> Int {
      random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((random >> 33) % UInt64(bound))
    }
    let alphabet = Array("ab\r\n\n;".utf8)
    for _ in 0..<500 {
      let stream = (0..<next(200)).map { _ in alphabet[next(alphabet.count)] }
      let maximum = 1 + next(12)
      var decoder = LineDecoder(maximumLength: maximum)
      var lines: [LineDecoder.Line] = []
      var start = 0
      while start < stream.count {
        let end = min(stream.count, start + 1 + next(9))
        lines += decoder.feed(stream[start..<end])  // an ArraySlice: the contiguous path
        start = end
      }
      #expect(lines == Self.reference(stream, maximumLength: maximum), "stream \(stream), maximum \(maximum)")
      #expect(decoder.offset == stream.count)
      var lazily = LineDecoder(maximumLength: maximum)
      #expect(lazily.feed(stream.lazy.map { $0 }) == lines, "a collection without contiguous storage")
    }
  }

  static func reference(_ bytes: [UInt8], maximumLength: Int) -> [LineDecoder.Line] {
    var lines: [LineDecoder.Line] = []
    var pending: [UInt8] = []
    var pendingOffset = 0
    var skipping = false
    for (position, byte) in bytes.enumerated() {
      if byte == UInt8(ascii: "\n") {
        if skipping {
          skipping = false
        } else {
          if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
          lines.append(.line(pending, offset: pendingOffset))
        }
        pending.removeAll()
        pendingOffset = position + 1
        continue
      }
      if skipping { continue }
      if pending.isEmpty { pendingOffset = position }
      pending.append(byte)
      if pending.count > maximumLength {
        lines.append(.tooLong(offset: pendingOffset))
        pending.removeAll()
        skipping = true
      }
    }
    return lines
  }

  @Test func aLineTooLongIsReportedOnceAndSkipped() {
    var decoder = LineDecoder(maximumLength: 4)
    let lines = decoder.feed(Array("ok\n123456789\nnext\n".utf8))
    #expect(lines == [.line(Array("ok".utf8), offset: 0), .tooLong(offset: 3), .line(Array("next".utf8), offset: 13)])
  }
}
