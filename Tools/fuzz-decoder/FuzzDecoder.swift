// libFuzzer target over the stream decoder and the message layer: whatever bytes arrive on a serial
// line, decoding must neither crash nor hang, and every frame it accepts must re-encode to itself.
// Built by `make fuzz` with -sanitize=fuzzer,address; run as a plain executable it replays files.
import CallAlertFuzzDriver
import CallAlertProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// One input: decode it as a byte stream, round-trip what decodes, parse it as a pattern and a table.
func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  // The first byte picks a small maximum payload sometimes, so over-long handling is exercised too.
  let maxPayload = bytes.first.map { $0 & 1 == 0 ? Frame.maxPayload : Frame.minimumMaxPayload } ?? Frame.maxPayload
  var decoder = FrameDecoder(maxPayload: maxPayload)
  for output in decoder.feed(bytes) {
    guard case .frame(let frame) = output else { continue }
    // A frame that decoded must round-trip through the wire encoding.
    var again = FrameDecoder(maxPayload: maxPayload)
    let reencoded = again.feed(frame.encoded())
    precondition(reencoded == [.frame(frame)], "frame did not round-trip")
    if let message = try? Message.decode(frame) {
      // A message that decoded must encode to the same payload.
      let rebuilt = message.frame(sequence: frame.sequence, nonce: frame.nonce)
      precondition(rebuilt.payload == frame.payload, "message payload did not round-trip: \(message)")
    }
  }
  // The pattern and table parsers take the same bytes raw.
  _ = try? Pattern.decode(bytes)
  _ = try? PatternTable.decode(bytes)
  return 0
}

/// The executable's entry: libFuzzer under `make fuzz`, replaying files otherwise (see FuzzDriver).
@main
struct FuzzDecoderMain {
  static func main() throws {
    try FuzzDriver.run { data, size in fuzzOneInput(data ?? UnsafePointer(bitPattern: 1)!, size) }
  }
}
