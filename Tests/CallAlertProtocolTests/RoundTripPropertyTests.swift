import CallAlertProtocol
import CallAlertVirtualBoard
import PropertyBased
import Testing

/// decode(encode(m)) == m for random messages of every kind, through every layer.
@Suite struct RoundTripPropertyTests {
  /// Encodes `framed` to the wire, decodes it with a fresh stream decoder and reads the message back.
  static func roundTrip(_ framed: FramedMessage) throws -> (frame: Frame, message: Message) {
    var decoder = FrameDecoder()
    let outputs = decoder.feed(framed.frame.encoded())
    try #require(outputs.count == 1, "one output for \(framed)")
    guard case .frame(let frame) = outputs[0] else { throw VectorFormatError("dropped \(outputs[0]) for \(framed)") }
    return (frame, try Message.decode(frame))
  }

  @Test(arguments: Arbitrary.Kind.allCases)
  func everyKindRoundTripsThroughTheWire(kind: Arbitrary.Kind) async {
    await propertyCheck(count: 300, input: Generators.message(kind), Generators.seed) { message, seed throws in
      var rng = SplitMix64(seed: seed)
      let framed = FramedMessage(message: message, sequence: rng.edgy(), nonce: rng.edgy())
      let (frame, decoded) = try Self.roundTrip(framed)
      #expect(decoded == message)
      #expect(frame == framed.frame, "header and payload survive")
    }
  }

  @Test func messagesRoundTripThroughRawBytes() async {
    await propertyCheck(count: 500, input: Generators.framedMessage) { framed throws in
      let raw = framed.frame.rawBytes()
      #expect(raw.count == Frame.headerSize + framed.frame.payload.count + Frame.trailerSize)
      let frame = try Frame.parse(raw: raw)
      #expect(frame == framed.frame)
      #expect(try Message.decode(frame) == framed.message)
      // Re-encoding what was decoded gives the same bytes: the encoding is canonical.
      #expect(try Message.decode(frame).frame(sequence: frame.sequence, nonce: frame.nonce).rawBytes() == raw)
    }
  }

  @Test(arguments: MessageType.allCases.filter(\.isCommand))
  func everyCommandTypeAndItsReplyRoundTrip(type: MessageType) async {
    await propertyCheck(count: 100, input: Generators.seed) { seed throws in
      var rng = SplitMix64(seed: seed)
      let command = Arbitrary.command(type, using: &rng)
      #expect(try Command.decode(type: type, payload: command.payload()) == command)
      let reply = Arbitrary.reply(to: type, using: &rng)
      #expect(try Reply.decode(type: type, payload: reply.payload()) == reply)
    }
  }

  @Test(arguments: MessageType.allCases.filter(\.isEvent))
  func everyEventTypeRoundTrips(type: MessageType) async {
    await propertyCheck(count: 100, input: Generators.seed) { seed throws in
      var rng = SplitMix64(seed: seed)
      let event = Arbitrary.event(type, using: &rng)
      #expect(try Event.decode(type: type, payload: event.payload()) == event)
    }
  }

  @Test func patternsAndTablesRoundTrip() async {
    await propertyCheck(count: 200, input: Generators.seed) { seed throws in
      var rng = SplitMix64(seed: seed)
      let pattern = Arbitrary.pattern(using: &rng)
      #expect(pattern.encoded().count == pattern.encodedSize)
      #expect(try Pattern.decode(pattern.encoded()) == pattern)
      let slots = (0..<rng.draw(1...8)).map { _ -> PatternTable.Slot? in
        guard rng.chance(0.75) else { return nil }
        let name = (0..<rng.draw(0...PatternTable.nameSize)).map { _ in UInt8(rng.draw(0x20...0x7E)) }
        return PatternTable.Slot(name: name, pattern: Arbitrary.pattern(using: &rng))
      }
      let table = PatternTable(version: rng.edgy(), slots: slots)
      let bytes = table.encoded()
      #expect(try PatternTable.decode(bytes) == table)
      #expect(CRC32C.checksum(bytes) == 0x4867_4BC7)
    }
  }

  @Test func generatorsReachEveryMessageTypeAndReplyKind() {
    var rng = SplitMix64(seed: 0x6E6E_7261_746F_7273)
    var types = Set<UInt8>()
    var replies = Set<String>()
    var kinds = Set<String>()
    for _ in 0..<3000 {
      let message = Arbitrary.message(using: &rng)
      types.insert(VectorJSON.typeCode(of: message))
      kinds.insert(VectorJSON.kind(of: message))
      if case .reply(_, let reply) = message { replies.insert(VectorJSON.replyName(reply)) }
    }
    #expect(types.isSuperset(of: MessageType.allCases.map(\.rawValue)))
    #expect(replies.count == 10)
    #expect(kinds.count == 6)
  }

  @Test func payloadsAtTheLimitPassAndOneMoreIsRefused() throws {
    let largest = Frame(
      sequence: 1, type: MessageType.ping.rawValue, nonce: 2, payload: [UInt8](repeating: 0x5A, count: 1024))
    #expect(try Frame.parse(raw: largest.rawBytes()) == largest)
    var decoder = FrameDecoder()
    #expect(decoder.feed(largest.encoded()) == [.frame(largest)])
    var tooLarge = largest
    tooLarge.payload.append(0x5A)
    #expect(throws: FrameError.payloadTooLarge(count: 1025, limit: 1024)) { try Frame.parse(raw: tooLarge.rawBytes()) }
    // Over the wire it does not even fit the receive buffer: it is over-long.
    let outputs = decoder.feed(tooLarge.encoded())
    #expect(outputs == [.dropped(.overlong(count: tooLarge.encoded().count - 1))])
  }
}
