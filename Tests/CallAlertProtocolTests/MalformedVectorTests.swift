import CallAlertProtocol
import Testing

/// malformed.json: each input, through the stream decoder and (for single frames) Frame.parse and Message.decode,
/// gives exactly the documented outcome, and the decoder's counters move as documented.
@Suite struct MalformedVectorTests {
  /// The cases of malformed.json.
  static func cases() throws -> [NamedVector] { try VectorFiles.entries("malformed.json", "cases") }

  @Test(arguments: try cases())
  func streamDecoderGivesTheExpectedOutputs(vector: NamedVector) throws {
    var decoder = FrameDecoder(maxPayload: try vector.json.integer("max_payload"))
    let outputs = decoder.feed(try vector.json.hexBytes("wire_hex"))
    #expect(JSONValue.array(outputs.map(VectorJSON.json)) == (try vector.json.member("outputs")))
    #expect(VectorJSON.json(decoder.counters) == (try vector.json.member("counters")))
  }

  @Test(arguments: try cases())
  func byteAtATimeGivesTheSameOutputs(vector: NamedVector) throws {
    var decoder = FrameDecoder(maxPayload: try vector.json.integer("max_payload"))
    var outputs: [FrameDecoder.Output] = []
    for byte in try vector.json.hexBytes("wire_hex") {
      if let output = decoder.push(byte) { outputs.append(output) }
    }
    #expect(JSONValue.array(outputs.map(VectorJSON.json)) == (try vector.json.member("outputs")))
  }

  @Test(arguments: try cases().filter { $0.json["raw_hex"] != nil })
  func frameParserAgreesOnSingleFrames(vector: NamedVector) throws {
    let raw = try vector.json.hexBytes("raw_hex")
    let outputs = try vector.json.array("outputs")
    try #require(outputs.count == 1)
    let maxPayload: Int = try vector.json.integer("max_payload")
    let actual: JSONValue
    do throws(FrameError) {
      actual = VectorJSON.json(.frame(try Frame.parse(raw: raw, maxPayload: maxPayload)))
    } catch {
      actual = .object(["dropped": VectorJSON.json(error)])
    }
    #expect(actual == outputs[0])
  }

  @Test func countersSeparateCRCFramingAndOverlong() throws {
    // One decoder per max_payload through every case in a row: each class of drop lands in its own counter, and the
    // totals are the sums of the per-case counters.
    var decoders: [Int: FrameDecoder] = [:]
    var expected: [String: Int] = [:]
    for vector in try Self.cases() {
      let maxPayload: Int = try vector.json.integer("max_payload")
      var decoder = decoders[maxPayload] ?? FrameDecoder(maxPayload: maxPayload)
      _ = decoder.feed(try vector.json.hexBytes("wire_hex"))
      decoder.reset()  // forgets a partial frame, keeps the counters
      decoders[maxPayload] = decoder
      guard case .members(let counters) = try vector.json.member("counters") else { continue }
      for counter in counters { expected[counter.key, default: 0] += try counter.value.integer(as: Int.self) }
    }
    let actual = decoders.values.reduce(into: [String: Int]()) { totals, decoder in
      totals["frames_ok", default: 0] += Int(decoder.counters.frames)
      totals["crc_errors", default: 0] += Int(decoder.counters.crc)
      totals["framing_errors", default: 0] += Int(decoder.counters.framing)
      totals["overlong", default: 0] += Int(decoder.counters.overlong)
    }
    #expect(actual == expected)
    #expect(expected["crc_errors", default: 0] >= 3)
    #expect(expected["framing_errors", default: 0] >= 10)
    #expect(expected["overlong", default: 0] >= 1)
  }

  @Test func messageErrorsBecomeTheNakABoardSends() {
    #expect(MessageError.unknownType(0x7E).nak == Nak(.unknownType, detail: 0x7E))
    let truncated = MessageError.payload(type: 0x10, PayloadError(.truncated, field: "cap_ms", offset: 4))
    #expect(truncated.nak == Nak(.badPayload, detail: 4))
  }

  @Test func payloadErrorDescribesFieldAndOffset() {
    #expect(
      PayloadError(.truncated, field: "cap_ms", offset: 4).description == "payload truncated in field cap_ms at byte 4")
    #expect(
      PayloadError(.invalidValue, field: "mode", offset: 1) != PayloadError(.invalidValue, field: "led", offset: 1))
  }
}
