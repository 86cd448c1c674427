// libFuzzer target over the Asterisk Manager Interface stream: arbitrary bytes, cut into frames, followed by the
// call tracker (endpoints and hints) and the router, as the daemon does with what a PBX sends. Nothing may crash
// or hang, and the tracker must keep its rules: an answer or end only for a call that rang, each once.
// Built by `make fuzz` with -sanitize=fuzzer,address; run as a plain executable it replays files.
import CallAlertBridges
import CallAlertFuzzDriver
import CallAlertValues

/// One input: the bytes as a stream, in two chunks split at the first byte's value (decoders must not care).
func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  let split = min(Int(data[0]), bytes.count)
  var decoder = AMIFrameDecoder()
  var tracker = AMICallTracker(endpoints: ["PJSIP/201", "PJSIP/202"], extensions: ["201@ext-local", "300"])
  var router = BridgeRouter(
    source: BridgeSource(
      name: "pbx", kind: .ami, host: "pbx", filters: [BridgeFilter(extensions: ["201"], pattern: "ring")]),
    region: "US")
  var ringing: [String] = []
  for chunk in [bytes[..<split], bytes[split...]] {
    for item in decoder.feed(chunk) {
      switch item {
      case .greeting: continue
      case .malformed(let offset, _): precondition(offset >= 0 && offset <= size, "offset \(offset) outside the stream")
      case .frame(let frame, _):
        precondition(frame.fields.count <= AMIFrameDecoder.maximumFields, "a frame past its bound")
        for notification in tracker.handle(frame) {
          switch notification {
          case .ringing(let call):
            precondition(!ringing.contains(call.id), "call \(call.id) rang twice")
            ringing.append(call.id)
          case .answered(let id):
            precondition(ringing.contains(id), "answer for \(id), which never rang")
          case .ended(let id, _):
            precondition(ringing.contains(id), "end of \(id), which never rang")
            ringing.removeAll { $0 == id }
          }
          _ = router.route(notification)
        }
        precondition(tracker.callIDs.count <= AMICallTracker.maximumCalls, "the tracker grew past its bound")
      }
    }
  }
  return 0
}

/// The executable's entry: libFuzzer under `make fuzz`, replaying files otherwise (see FuzzDriver).
@main
struct FuzzAMIMain {
  static func main() throws {
    try FuzzDriver.run { data, size in fuzzOneInput(data ?? UnsafePointer(bitPattern: 1)!, size) }
  }
}
