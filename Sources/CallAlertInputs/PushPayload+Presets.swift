import CallAlertEngine

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
      var call = try presetCall()
      call.level = max(call.level, .timeSensitive)
      call.patternHint = PushPayload.continuousVibrationHint
      return .call(call)
    }
    let keys = root.members?.map(\.key) ?? []
    return .ignored(
      reason: "no push rule and no preset (pushType, info.type, act) matches; top-level keys: "
        + (keys.isEmpty ? "none" : keys.joined(separator: ", ")))
  }

  /// `1` (or "1") is an incoming call, `2` a hangup; anything else is not about calls.
  private func callOrHangup(_ type: JSONValue, field: String) throws(InputError) -> PushNotification {
    switch type.scalarText {
    case "1": return .call(try presetCall())
    case "2": return .hangup(callID: try presetCallID())
    default: return .ignored(reason: "\(field) \(type.quoted) is neither 1 (incoming call) nor 2 (hangup)")
    }
  }

  private func presetCallID() throws(InputError) -> String {
    guard let id = try firstText(at: PushPayload.callIDPaths) else {
      throw error(
        nil, "", "no call id (looked at \(PushPayload.callIDPaths.map(\.description).joined(separator: ", ")))")
    }
    return id
  }

  /// The call of a preset: id, caller, name, sent-at and level from their usual places.
  private func presetCall() throws(InputError) -> IncomingCall {
    var name = try firstText(at: PushPayload.namePaths)
    if name == nil, let alert = root.value(at: "aps.alert"), let text = alert.string, !text.isEmpty { name = text }
    return IncomingCall(
      id: try presetCallID(), callerNumber: try firstText(at: PushPayload.callerPaths), callerName: name,
      sentAt: try firstDate(at: PushPayload.sentAtPaths), level: try level(at: PushPayload.levelPath) ?? .active)
  }
}
