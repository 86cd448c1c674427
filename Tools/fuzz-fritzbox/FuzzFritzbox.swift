// libFuzzer target over the FRITZ!Box call monitor stream: arbitrary bytes, cut into lines, parsed and followed
// by the call tracker and the router, as the daemon does with what a box (or anyone on the LAN) sends. Nothing
// may crash or hang, and the tracker must keep its rules: an answer or end only for a call that rang.
// Built by `make fuzz` with -sanitize=fuzzer,address; run as a plain executable it replays files.
import CallAlertBridges
import CallAlertFuzzDriver
import CallAlertValues

/// One input: the bytes as a stream, in two chunks split at the first byte's value (decoders must not care).
func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  let split = min(Int(data[0]), bytes.count)
  var lines = LineDecoder(maximumLength: 1_024)
  var tracker = FritzCallTracker()
  var router = BridgeRouter(
    source: BridgeSource(
      name: "box", kind: .fritzbox, host: "fritz.box", filters: [BridgeFilter(lines: ["SIP0"], boards: ["desk"])]),
    region: "DE")
  var ringing: [String] = []
  for chunk in [bytes[..<split], bytes[split...]] {
    for line in lines.feed(chunk) {
      guard case .line(let text, let offset) = line else { continue }
      precondition(offset >= 0 && offset <= size, "offset \(offset) outside the stream")
      guard let parsed = try? FritzMonitorLine.parse(text) else { continue }
      for notification in tracker.handle(parsed) {
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
      precondition(tracker.calls.count <= FritzCallTracker.maximumCalls, "the tracker grew past its bound")
    }
  }
  return 0
}

/// The executable's entry: libFuzzer under `make fuzz`, replaying files otherwise (see FuzzDriver).
@main
struct FuzzFritzboxMain {
  static func main() throws {
    try FuzzDriver.run { data, size in fuzzOneInput(data ?? UnsafePointer(bitPattern: 1)!, size) }
  }
}
