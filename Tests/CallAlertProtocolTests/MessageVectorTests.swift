import CallAlertProtocol
import Testing

/// One entry of messages.json, read.
struct MessageVector {
  let name: String
  let kind: String
  let typeCode: UInt8
  let flagsByte: UInt8
  let sequence: UInt16
  let nonce: UInt32
  /// The message built from the entry's `fields`.
  let message: Message
  let fields: JSONValue
  let payload: [UInt8]
  let raw: [UInt8]
  let wire: [UInt8]

  /// Reads a vector entry, building its message from the readable fields.
  init(_ json: JSONValue) throws {
    name = try json.string("name")
    kind = try json.string("kind")
    typeCode = try json.integer("type_code")
    let header = try json.member("header")
    flagsByte = try header.integer("flags_byte")
    sequence = try header.integer("sequence")
    nonce = try header.integer("nonce")
    fields = try json.member("fields")
    message = try VectorJSON.message(
      kind: kind, typeCode: typeCode, reply: try json["reply"]?.string(), fields: fields)
    payload = try json.hexBytes("payload_hex")
    raw = try json.hexBytes("raw_hex")
    wire = try json.hexBytes("wire_hex")
  }
}

/// messages.json both ways: the message built from each vector's fields encodes to its payload, raw and wire
/// bytes, and those bytes decode (through the stream decoder, and through Frame.parse) to the same message.
@Suite struct MessageVectorTests {
  /// The vectors of messages.json.
  static func vectors() throws -> [NamedVector] { try VectorFiles.entries("messages.json", "vectors") }

  @Test(arguments: try vectors())
  func messageFromFieldsEncodesToTheVectorBytes(vector: NamedVector) throws {
    let expected = try MessageVector(vector.json)
    let frame = expected.message.frame(sequence: expected.sequence, nonce: expected.nonce)
    #expect(frame.version == Frame.version)
    #expect(frame.flags.rawValue == expected.flagsByte)
    #expect(frame.type == expected.typeCode)
    #expect(frame.sequence == expected.sequence)
    #expect(frame.nonce == expected.nonce)
    #expect(hexString(frame.payload) == hexString(expected.payload))
    #expect(hexString(frame.rawBytes()) == hexString(expected.raw))
    #expect(hexString(frame.encoded()) == hexString(expected.wire))
  }

  @Test(arguments: try vectors())
  func wireBytesDecodeToTheMessageFromFields(vector: NamedVector) throws {
    let expected = try MessageVector(vector.json)
    var decoder = FrameDecoder()
    let outputs = decoder.feed(expected.wire)
    try #require(outputs.count == 1, "one frame, got \(outputs)")
    guard case .frame(let frame) = outputs[0] else {
      Issue.record("dropped: \(outputs[0])")
      return
    }
    #expect(frame.flags.rawValue == expected.flagsByte)
    #expect(frame.sequence == expected.sequence)
    #expect(frame.type == expected.typeCode)
    #expect(frame.nonce == expected.nonce)
    #expect(frame.payload == expected.payload)
    #expect(try Message.decode(frame) == expected.message)
    #expect(decoder.counters.frames == 1 && decoder.counters.crc == 0 && decoder.counters.framing == 0)
  }

  @Test(arguments: try vectors())
  func rawBytesParseToTheMessageFromFields(vector: NamedVector) throws {
    let expected = try MessageVector(vector.json)
    let frame = try Frame.parse(raw: expected.raw)
    #expect(try Message.decode(frame) == expected.message)
    #expect(frame.rawBytes() == expected.raw)
  }

  @Test(arguments: try vectors())
  func vectorIsSelfConsistent(vector: NamedVector) throws {
    let entry = try MessageVector(vector.json)
    let header = try vector.json.member("header")
    // The readable parts agree with the bytes, independently of the codec.
    #expect(VectorJSON.fields(of: entry.message) == entry.fields, "fields regenerate from the message")
    #expect(try header.integer("length", as: Int.self) == entry.payload.count)
    #expect(try header.integer("version", as: UInt8.self) == 1)
    #expect(try header.member("flags").names() == VectorNames.names(of: FrameFlags(rawValue: entry.flagsByte)))
    #expect(entry.flagsByte == VectorCatalog.flagsByte(kind: entry.kind))
    let typeName = try vector.json.member("type")
    if let type = MessageType(rawValue: entry.typeCode) {
      #expect(try typeName.string() == VectorNames.messageTypes.name(type))
    } else {
      #expect(typeName.isNull)
    }
    #expect(
      entry.raw
        == ReferenceCodec.rawFrame(
          flags: entry.flagsByte, sequence: entry.sequence, type: entry.typeCode, nonce: entry.nonce,
          payload: entry.payload))
    #expect(entry.wire == ReferenceCodec.cobs(entry.raw) + [0])
    #expect(!entry.wire.dropLast().contains(0))
  }

  @Test func vectorsCoverEveryMessageTypeAndAnswerKind() throws {
    let entries = try Self.vectors().map { try MessageVector($0.json) }
    let commands = entries.compactMap { entry -> Command? in
      if case .command(let command) = entry.message { return command }
      return nil
    }
    #expect(Set(commands.map(\.type)) == Set(MessageType.allCases.filter(\.isCommand)), "every command type")
    let replies = entries.compactMap { entry -> Reply? in
      if case .reply(_, let reply) = entry.message { return reply }
      return nil
    }
    #expect(
      Set(replies.map(VectorJSON.replyName))
        == [
          "INFO", "PONG", "STATUS", "PLAYING", "STOPPED", "OK", "TABLE_READY", "TABLE_PROGRESS", "TABLE_COMMITTED",
          "TABLE_BYTES",
        ])
    let nakCodes = entries.compactMap { entry -> UInt8? in
      if case .nak(_, let nak) = entry.message { return nak.rawCode }
      return nil
    }
    #expect(Set(nakCodes).count >= 5, "several NAK codes")
    let events = entries.compactMap { entry -> Event? in
      if case .event(let event) = entry.message { return event }
      return nil
    }
    #expect(Set(events.map(\.type)) == Set(MessageType.allCases.filter(\.isEvent)), "every event type")
    let endReasons = events.compactMap { event -> UInt8? in
      if case .playEnded(let ended) = event { return ended.reason.rawValue }
      return nil
    }
    #expect(Set(endReasons) == Set(0...5), "PLAY_ENDED with each reason")
    let pressKinds = events.compactMap { event -> UInt8? in
      if case .button(let button) = event { return button.kind.rawValue }
      return nil
    }
    #expect(Set(pressKinds) == [0, 1], "BUTTON press and long press")
    #expect(entries.contains { if case .eventAck = $0.message { true } else { false } }, "an event ACK")
    #expect(entries.contains { if case .actuators = $0.message { true } else { false } }, "an ACTUATORS notification")
    let plays = commands.compactMap { command -> PlayRequest? in
      if case .play(let play) = command { return play }
      return nil
    }
    #expect(plays.contains { if case .slot = $0.source { true } else { false } }, "PLAY with a slot")
    #expect(plays.contains { if case .inline = $0.source { true } else { false } }, "PLAY with an inline pattern")
    #expect(plays.contains { !$0.options.isEmpty }, "PLAY with options")
    #expect(commands.contains(.stop(token: Command.stopAll)), "STOP all")
    #expect(
      commands.contains { if case .stop(let token) = $0 { token != Command.stopAll } else { false } }, "STOP token")
    let modes = commands.compactMap { command -> IndicatorMode? in
      if case .setIndicator(let setting) = command { return setting.mode }
      return nil
    }
    #expect(Set(modes.map(\.rawValue)) == [0, 1, 2], "SET_INDICATOR off, on, blink")
    let areas = commands.compactMap { command -> TableArea? in
      if case .tableRead(let read) = command { return read.area }
      return nil
    }
    #expect(Set(areas.map(\.rawValue)) == [0, 1], "TABLE_READ active and staged")
  }
}
