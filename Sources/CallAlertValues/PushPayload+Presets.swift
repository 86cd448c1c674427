import CallAlertEngine
import CallAlertText

/// The built-in payload shapes, after the public write-ups of ringing from an iOS notification service
/// extension: `pushType` 1/2, `info.type` 1/2, and `act` 4 (continuous vibration).
extension PushReader {
  /// Tries the presets in order; a payload none of them knows is ignored, not an error.
  func presets() throws(InputError) -> PushNotification {
    if let type = root["pushType"] {
      return try callOrHangup(type, field: "pushType")
    }
    if let info = root["info"], info.members != nil, let type = info["type"] {
      return try callOrHangup(type, field: "info.type")
    }
    if let act = root["act"] {
      guard act.scalarText == "4" else {
        return .ignored(reason: "act \(act.quoted) is not 4 (an alert that needs continuous vibration)")
      }
      // Rings like a call: the cap, a hangup and an acknowledgement all end it.
      var call = try presetCall()
      call.level = max(call.level, .timeSensitive)
      call.patternHint = PushPayload.continuousVibrationHint
      return call.id.isEmpty ? .callWithoutID(call) : .call(call)
    }
    let keys = root.members?.map(\.key) ?? []
    let shown = keys.prefix(10).map { DisplayText.excerpt($0, limit: 30) } + (keys.count > 10 ? ["…"] : [])
    return .ignored(
      reason: "no push rule and no preset (pushType, info.type, act) matches; top-level keys: "
        + (keys.isEmpty ? "none" : shown.joined(separator: ", ")))
  }

  /// Words app servers use for the two kinds, compared without case: `"call"`, `"hangup"` and their kin.
  static let callWords: Set<String> = ["call", "incoming_call", "incoming-call", "incomingcall", "ring", "ringing"]
  static let hangupWords: Set<String> = [
    "hangup", "hang_up", "hang-up", "end", "ended", "end_call", "end-call", "cancel", "canceled", "cancelled",
  ]

  /// `1` (or "1", or a word such as "call") is an incoming call, `2` (or "hangup"...) a hangup; anything else
  /// is not about calls.
  private func callOrHangup(_ type: JSONValue, field: String) throws(InputError) -> PushNotification {
    let word = type.string?.lowercased() ?? ""
    let kind = Self.callWords.contains(word) ? "1" : Self.hangupWords.contains(word) ? "2" : type.scalarText
    switch kind {
    case "1":
      let call = try presetCall()
      return call.id.isEmpty ? .callWithoutID(call) : .call(call)
    case "2":
      if let id = try presetCallID() { return .hangup(callID: id) }
      return .hangupWithoutID(callerNumber: try firstText(at: PushPayload.callerPaths))
    default:
      return .ignored(
        reason: "\(field) \(type.quoted) is neither 1 or \"call\" (incoming call) nor 2 or \"hangup\" (hangup)")
    }
  }

  /// The first call id at ``PushPayload/callIDPaths``; nil when the payload names none.
  private func presetCallID() throws(InputError) -> String? {
    for path in PushPayload.callIDPaths {
      if let id = try callID(at: path) { return id }
    }
    return nil
  }

  /// The call of a preset: id (empty when the payload names none), caller, name, sent-at and level from their
  /// usual places.
  private func presetCall() throws(InputError) -> IncomingCall {
    var name = try firstText(at: PushPayload.namePaths)
    if name == nil, let alert = root.value(at: "aps.alert"), let text = alert.string, !text.isEmpty { name = text }
    return IncomingCall(
      id: try presetCallID() ?? "", callerNumber: try firstText(at: PushPayload.callerPaths), callerName: name,
      sentAt: try firstDate(at: PushPayload.sentAtPaths), level: try level(at: PushPayload.levelPath) ?? .active)
  }
}
