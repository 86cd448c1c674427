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

  @Test func aLineTooLongIsReportedOnceAndSkipped() {
    var decoder = LineDecoder(maximumLength: 4)
    let lines = decoder.feed(Array("ok\n123456789\nnext\n".utf8))
    #expect(lines == [.line(Array("ok".utf8), offset: 0), .tooLong(offset: 3), .line(Array("next".utf8), offset: 13)])
  }
}
