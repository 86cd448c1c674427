import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension StatusReport.Source {
  /// The event line for a change of this source's state (a SIP account registered or failing, a phone system
  /// connected), printed beside the engine's events:
  ///
  /// ```json
  /// {"event":"source","at":"2026-11-24T09:00:00.000Z","source":{"name":"pbx","kind":"sip","address":"pbx.local","state":"failing","reason":"REGISTER failed: 403 Forbidden","next_attempt_ms":8000,"failures":2}}
  /// ```
  ///
  /// As text: `09:00:00 source pbx (sip pbx.local): failing, REGISTER failed: 403 Forbidden`.
  public func eventLine(format: EventsFormat, at date: Date) -> String {
    switch format {
    case .json:
      let stamp = JSONText.quoted(Timestamp.iso8601(date))
      return #"{"event":"source","at":\#(stamp),"source":\#(ControlResponse.json(self) ?? "null")}"#
    case .text:
      return
        "\(Timestamp.clock(date, timeZone: .current)) source \(name) (\(kind) \(address)): \(state)\(reason.map { ", \($0)" } ?? "")"
    }
  }
}
