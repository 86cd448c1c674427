// libFuzzer target over the stream decoder and the message layer: whatever bytes arrive on a serial
// line, decoding must neither crash nor hang, and every frame it accepts must re-encode to itself.
// Built by `make fuzz` with -sanitize=fuzzer,address; run as a plain executable it replays files.
import CallAlertProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
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

#if !FUZZING
  import Foundation

  /// Without libFuzzer (a plain build), replays the files named on the command line, e.g. a crash
  /// artifact, through the same entry point, so a finding can be debugged without the sanitizer.
  @main
  struct FuzzDecoderReplay {
    static func main() throws {
      for path in CommandLine.arguments.dropFirst() {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        _ = bytes.withUnsafeBufferPointer { fuzzOneInput($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) }
        print("\(path): \(bytes.count) bytes, no failure")
      }
    }
  }
#endif
