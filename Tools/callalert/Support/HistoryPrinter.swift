import CallAlertHistory
import CallAlertText
import CallAlertValues
// Full Foundation, not FoundationEssentials: DateFormatter (its signature is the tests').
import Foundation

/// Prints the call history, newest first, as text or JSON.
enum HistoryPrinter {
  static func print(path: String, missedOnly: Bool, limit: Int, json: Bool) throws {
    let history = try CallHistory.reading(path: path)
    try print(try history.calls(missedOnly: missedOnly, limit: limit), missedOnly: missedOnly, json: json)
  }

  /// Prints calls, newest first.
  static func print(_ calls: [CallRecord], missedOnly: Bool, json: Bool) throws {
    if json { return try printJSON(calls) }
    if calls.isEmpty {
      Swift.print(missedOnly ? "no missed calls" : "no calls")
      return
    }
    let format = DateFormatter()
    format.dateFormat = "yyyy-MM-dd HH:mm:ss"
    for call in calls { Swift.print(line(call, dates: format)) }
  }

  /// One call's line: when, id, who, the outcome and why, how long it rang, whether it was missed.
  static func line(_ call: CallRecord, dates format: DateFormatter) -> String {
    let who = [call.callerName, call.callerNumber].compactMap { $0 }.joined(separator: " ")
    let rang =
      call.rangAt.flatMap { start in
        call.endedAt.map { PrintfText.format(", rang %.1f s", $0.timeIntervalSince(start)) }
      } ?? ""
    let ack = call.missed ? (call.acknowledged ? ", missed (acknowledged)" : ", missed") : ""
    // The reason says more than the outcome, or nothing: "answered (answered)" repeated it.
    let reason = call.reason.flatMap { $0.isEmpty || $0 == call.outcome.rawValue ? nil : " (\($0))" } ?? ""
    return
      "\(format.string(from: call.receivedAt))  \(call.id)  \(who.isEmpty ? "withheld" : who)  "
      + "\(call.outcome.rawValue)\(reason)\(rang)\(ack)"
  }
}
