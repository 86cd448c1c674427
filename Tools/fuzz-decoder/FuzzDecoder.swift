// libFuzzer target over the stream decoder and the message layer: whatever bytes arrive on a serial
// line, decoding must neither crash nor hang, and every frame it accepts must re-encode to itself.
// Built by `make fuzz` with -sanitize=fuzzer,address; run as a plain executable it replays files.
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

#if FUZZING
  /// libFuzzer's entry for programs that keep their own `main`.
  @_silgen_name("LLVMFuzzerRunDriver")
  func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
  ) -> CInt
#else
  import Foundation
#endif

/// The executable's entry. Built with -DFUZZING and -sanitize=fuzzer (`make fuzz`), it hands control to
/// libFuzzer; a plain build replays the files named on the command line (a crash artifact, say) through
/// the same entry point, so a finding can be debugged without the sanitizer.
@main
struct FuzzDecoderMain {
  static func main() throws {
    #if FUZZING
      var argc = CommandLine.argc
      var argv = CommandLine.unsafeArgv
      let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        fuzzOneInput(data ?? UnsafePointer(bitPattern: 1)!, size)
      }
      exit(status)
    #else
      for path in CommandLine.arguments.dropFirst() {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        _ = bytes.withUnsafeBufferPointer { fuzzOneInput($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) }
        print("\(path): \(bytes.count) bytes, no failure")
      }
    #endif
  }
}
