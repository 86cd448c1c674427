import CallAlertControl
import CallAlertEngine
// libFuzzer target over the daemon's untrusted text inputs: push notification payloads (JSON from an app
// server) and control lines (JSON from the control socket and standard input). Whatever arrives, parsing
// must neither crash nor hang, and a call it reads must keep the rules the engine relies on.
// Built by `make fuzz` with -sanitize=fuzzer,address; run as a plain executable it replays files.
import CallAlertFuzzDriver
import CallAlertValues
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The rules of docs/CONFIG.md's example, so rule matching and field extraction are fuzzed too.
let rules = [
  PushRule(
    match: [PushRule.Match(path: "event", equals: "ring")], kind: .call, id: "data.call.id", caller: "data.call.from",
    name: "data.call.display_name", sentAt: "data.sent", level: "data.urgency", pattern: "data.tone"),
  PushRule(match: [PushRule.Match(path: "event", equals: "cancel")], kind: .hangup, id: "data.call.id"),
]

/// A fixed arrival time: results repeat, and a sent-at time after it must be lowered to it.
let receivedAt = Date(timeIntervalSince1970: 1_750_000_000)

/// One input: the first byte picks the parser (even: push payload, odd: control line), the rest is the text.
func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  if data[0] & 1 == 0 {
    guard let notification = try? PushPayload.parse(json: bytes, rules: rules, receivedAt: receivedAt) else { return 0 }
    switch notification {
    case .call(let call):
      precondition(!call.id.isEmpty, "a call without an id")
      if let sentAt = call.sentAt { precondition(sentAt <= receivedAt, "sent-at \(sentAt) is after the arrival") }
    case .hangup(let id):
      precondition(!id.isEmpty, "a hangup without an id")
    case .callWithoutID(let call):
      precondition(call.id.isEmpty, "an id-less call with an id")
      if let sentAt = call.sentAt { precondition(sentAt <= receivedAt, "sent-at \(sentAt) is after the arrival") }
    case .hangupWithoutID, .ignored:
      break
    }
  } else {
    _ = try? ControlRequest.parse(bytes: bytes, source: "fuzz", lineNumber: 1)
  }
  return 0
}

/// The executable's entry: libFuzzer under `make fuzz`, replaying files otherwise (see FuzzDriver).
@main
struct FuzzPushMain {
  static func main() throws {
    try FuzzDriver.run { data, size in fuzzOneInput(data ?? UnsafePointer(bitPattern: 1)!, size) }
  }
}
