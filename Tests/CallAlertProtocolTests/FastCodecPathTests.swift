import CallAlertProtocol
import CallAlertVirtualBoard
import Testing

/// The host's fast codec paths (CRC-32C by slice-by-8 and by the CPU's instruction, COBS over buffer pointers,
/// the decoder's chunk path) give exactly what the firmware's small paths give: the vectors through each path
/// named explicitly, and random inputs through both.
@Suite struct FastCodecPathTests {
  @Test func theHostHasMoreThanTheNibbleTable() {
    let available = CRC32C.Implementation.available
    #expect(available.contains(.nibbleTable))
    #expect(available.contains(.sliceBy8))
    #expect(available.contains(CRC32C.Implementation.fastest))
    #if arch(x86_64) || arch(arm64)
      // Every x86_64 CPU Swift runs on has SSE4.2 and every ARMv8.1 CPU has CRC32: the instruction path is tested,
      // not skipped, on the machines this project builds on.
      #expect(available.contains(.instruction), "the CPU's CRC-32C instruction was not found")
    #endif
  }

  @Test(arguments: try VectorFiles.entries("crc-cobs.json", "crc32c"))
  func everyCRCPathMatchesTheVector(vector: NamedVector) throws {
    let input = try vector.json.hexBytes("input_hex")
    let expected = try vector.json.integer("crc", as: UInt32.self)
    for implementation in CRC32C.Implementation.available {
      let crc = input.withUnsafeBytes { CRC32C.checksum($0, using: implementation) }
      #expect(crc == expected, "\(implementation)")
    }
  }

  @Test func everyCRCPathAgreesOnEveryLengthAndAlignment() {
    var random = SplitMix64(seed: 0xC3C)
    let bytes = (0..<1_100).map { _ in UInt8.random(in: 0...255, using: &random) }
    for start in 0..<9 {
      for count in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 255, 1_035, 1_091] {
        let slice = bytes[start..<(start + count)]
        var reference = CRC32C()
        for byte in slice { reference.update(byte) }
        for implementation in CRC32C.Implementation.available {
          let crc = slice.withUnsafeBytes { CRC32C.checksum($0, using: implementation) }
          #expect(crc == reference.value, "\(implementation), offset \(start), \(count) bytes")
        }
        // Split in two runs: the register carries across.
        var split = CRC32C()
        split.update(slice.prefix(count / 3))
        split.update(slice.dropFirst(count / 3))
        #expect(split.value == reference.value)
      }
    }
  }

  @Test(arguments: try VectorFiles.entries("crc-cobs.json", "cobs"))
  func bothCOBSPathsMatchTheVector(vector: NamedVector) throws {
    let raw = try vector.json.hexBytes("raw_hex")
    let encoded = try vector.json.hexBytes("encoded_hex")
    var contiguous: [UInt8] = []
    COBS.encode(raw, into: &contiguous)
    var byteByByte: [UInt8] = []
    COBS.encode(raw.lazy.map { $0 }, into: &byteByByte)  // no contiguous storage: the byte loop
    #expect(contiguous == encoded)
    #expect(byteByByte == encoded)
    var decoded: [UInt8] = [0xEE]
    try COBS.decode(encoded, into: &decoded)
    #expect(decoded == raw)
    decoded = [0xEE]
    try COBS.decode(encoded.lazy.map { $0 }, into: &decoded)
    #expect(decoded == raw)
  }

  @Test func bothCOBSPathsAgreeOnRandomInputsAndErrors() {
    var random = SplitMix64(seed: 0xC0B5)
    for round in 0..<400 {
      let count = Int.random(in: 0...1_100, using: &random)
      let zeroEvery = [2, 5, 50, 1_000_000][round % 4]
      let raw = (0..<count).map { _ in
        Int.random(in: 0..<zeroEvery, using: &random) == 0 ? 0 : UInt8.random(in: 1...255, using: &random)
      }
      var fast: [UInt8] = [0xAA]
      COBS.encode(raw, into: &fast)
      var slow: [UInt8] = [0xAA]
      COBS.encode(raw.lazy.map { $0 }, into: &slow)
      #expect(fast == slow, "encode, \(count) bytes")
      var decoded: [UInt8] = []
      #expect((try? COBS.decode(fast.dropFirst(), into: &decoded)) != nil)
      #expect(decoded == raw)

      // Damage: both decoders throw the same error (or decode the same bytes).
      var damaged = Array(fast.dropFirst())
      if !damaged.isEmpty {
        damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
      }
      if Bool.random(using: &random) { damaged.removeLast(min(damaged.count, 3)) }
      var fastOut: [UInt8] = []
      var slowOut: [UInt8] = []
      let fastResult = Result { () throws(COBSError) in try COBS.decode(damaged, into: &fastOut) }
      let slowResult = Result { () throws(COBSError) in try COBS.decode(damaged.lazy.map { $0 }, into: &slowOut) }
      #expect(fastResult.error == slowResult.error, "decode of damaged bytes \(damaged.prefix(8))...")
      if fastResult.error == nil { #expect(fastOut == slowOut) }
    }
  }

  /// The word-at-a-time encoder at the 254-byte limit: zero-free runs of 252 to 256 bytes, starting at every
  /// offset within a word, with zeros or the end around them, give what the byte loop gives.
  @Test func theEncodersAgreeAtTheLongestBlock() {
    for run in 252...256 {
      for lead in 0..<9 {
        for tail in [[], [0], [0, 5], [9, 0, 0]] as [[UInt8]] {
          let raw = [UInt8](repeating: 0, count: lead) + [UInt8](repeating: 0x5A, count: run) + tail
          var fast: [UInt8] = []
          COBS.encode(raw, into: &fast)
          var slow: [UInt8] = []
          COBS.encode(raw.lazy.map { $0 }, into: &slow)
          #expect(fast == slow, "run \(run) after \(lead) zeros, then \(tail)")
        }
      }
    }
  }

  @Test func frameEncodingPathsAgree() throws {
    var random = SplitMix64(seed: 0xF4A)
    var payloads = [0, 1, 16, 253, 254, 255, 1_024].map { count in
      (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) & 0x3F }
    }
    // Runs of 254 bytes and more without a zero: the in-place encoder hands over to the forward one.
    payloads += [[UInt8](repeating: 0xFF, count: 1_024), [UInt8](repeating: 0x01, count: 300) + [0] + [0x02]]
    for payload in payloads {
      let count = payload.count
      let frame = Frame(flags: .response, sequence: 0xBEEF, type: 0x42, nonce: 0x0102_0304, payload: payload)
      var raw = frame.rawBytes()
      // The reference: the header laid out by hand, the CRC by the nibble table, COBS byte by byte.
      let header: [UInt8] = [1, 0x01, 0xEF, 0xBE, 0x42, 0x04, 0x03, 0x02, 0x01, UInt8(count & 0xFF), UInt8(count >> 8)]
      var crc = CRC32C()
      for byte in header + payload { crc.update(byte) }
      let crcBytes = (0..<4).map { UInt8(truncatingIfNeeded: crc.value >> (8 * $0)) }
      #expect(raw == header + payload + crcBytes)
      var wire: [UInt8] = []
      COBS.encode(raw.lazy.map { $0 }, into: &wire)
      wire.append(0)
      #expect(frame.encoded() == wire)
      var appended: [UInt8] = [7]
      frame.appendEncoded(to: &appended)
      #expect(appended == [7] + wire)
      #expect(try Frame.parse(raw: raw) == frame)
      raw[5] ^= 0x10
      #expect(throws: FrameError.self) { try Frame.parse(raw: raw) }
    }
  }

  @Test func theDecoderGivesTheSameOutputsWhateverTheChunking() {
    // Good frames, corrupt ones, over-long ones, idle fill and broken COBS, fed byte by byte through push(_:),
    // whole as an array, and in random chunks through feed(_:_:): the same outputs and counters every time.
    var random = SplitMix64(seed: 0xDEC0)
    var stream: [UInt8] = [0, 0]
    for index in 0..<120 {
      let payload = (0..<Int.random(in: 0...300, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      var wire = Frame(sequence: UInt16(index), type: 0x10, nonce: 9, payload: payload).encoded()
      switch index % 6 {
      case 1: wire[wire.count / 2] ^= wire[wire.count / 2] == 1 ? 2 : 1  // corrupt (COBS or CRC)
      case 2: wire = [UInt8](repeating: 0x55, count: 400) + wire  // over-long for a 128-byte decoder... and more
      case 3: wire.insert(0, at: 0)  // idle fill
      default: break
      }
      stream += wire
    }
    stream += [0x03, 0x11]  // a partial frame at the end stays buffered

    var byByte = FrameDecoder(maxPayload: 300)
    var expected: [FrameDecoder.Output] = []
    for byte in stream { if let output = byByte.push(byte) { expected.append(output) } }
    #expect(expected.count > 100)

    var whole = FrameDecoder(maxPayload: 300)
    #expect(whole.feed(stream) == expected)
    #expect(whole.counters == byByte.counters)

    var tail = byByte  // a copy: the partial frame's end completes it
    let expectedTail = tail.feed([0x22, 0x00])
    #expect(expectedTail.count == 1)
    for _ in 0..<20 {
      var chunked = FrameDecoder(maxPayload: 300)
      var outputs: [FrameDecoder.Output] = []
      var start = 0
      while start < stream.count {
        let end = min(stream.count, start + Int.random(in: 1...700, using: &random))
        chunked.feed(stream[start..<end]) { outputs.append($0) }
        start = end
      }
      #expect(outputs == expected)
      #expect(chunked.counters == byByte.counters)
      // The partial frame is still there: its end completes it exactly as for the byte-by-byte decoder.
      #expect(chunked.feed([0x22, 0x00]) == expectedTail)
    }
  }
}

extension Result {
  fileprivate var error: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
