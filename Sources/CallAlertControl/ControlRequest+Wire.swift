import CallAlertEngine
import CallAlertText
import CallAlertValues

extension ControlRequest {
  /// The request as one JSON line, without its newline, as ``ControlClient`` sends it: the only place a
  /// request becomes text. ``parse(bytes:source:lineNumber:)`` reads it back to an equal request (times to
  /// the millisecond).
  ///
  /// - Throws: ``ControlFailure`` for an engine input no client may send (a board's news, a timer).
  public func line() throws(ControlFailure) -> String {
    var members = [(String, String)]()
    func add(_ key: String, _ text: String?) {
      if let text { members.append((key, JSONText.quoted(text))) }
    }
    switch self {
    case .input(.call(let call)):
      add("type", "call")
      add("id", call.id)
      add("caller", call.callerNumber)
      add("name", call.callerName)
      add("sent_at", call.sentAt.map(Timestamp.iso8601))
      add("level", call.level == .active ? nil : call.level.rawValue)
      add("pattern", call.patternHint)
    case .input(.hangup(let id)):
      add("type", "hangup")
      add("id", id)
    case .input(.answered(let id)):
      add("type", "answered")
      add("id", id)
    case .input(.acknowledge(let board)):
      add("type", "ack")
      add("board", board)
    case .input(.acknowledgeMissed(let id)):
      add("type", "ack")
      add("id", id)
    case .input(.setDoNotDisturb(let mode, let until)):
      add("type", "dnd")
      add("mode", mode.rawValue)
      add("until", until.map(Timestamp.iso8601))
    case .input(.setSilent(let on)):
      add("type", "silent")
      members.append(("on", on ? "true" : "false"))
    case .input(let other):
      throw ControlFailure("\(other) is not a control request; only callers' inputs travel on the socket")
    case .push(let document):
      add("type", "push")
      switch document.form {
      case .object:
        members.append(("payload", String(decoding: document.payload, as: UTF8.self)))
      case .text(let file):
        // The text exactly as read, so that the daemon's errors name this file's lines and columns.
        members.append(("payload", JSONText.quoted(String(decoding: document.bytes, as: UTF8.self))))
        add("file", file)
      }
    case .status:
      add("type", "status")
    case .history(let missedOnly, let limit):
      add("type", "history")
      members.append(("missed", missedOnly ? "true" : "false"))
      members.append(("limit", String(limit)))
    case .reload:
      add("type", "reload")
    case .pair(let device):
      add("type", "pair")
      add("device", device)
    }
    return JSONText.object(members)
  }
}
