import CallAlertEngine
import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Writes engine events as lines for standard output and listeners: JSON (one object per line, for
/// programs) or text (for people).
public enum EventLine {
  /// The event's name in both forms: ringing, suppressed, stopped, missed, missed_acknowledged,
  /// missed_call_acknowledged, ignored, pattern_fallback, calls_refused, dnd_ended.
  public static func name(of event: EngineEvent) -> String {
    switch event {
    case .ringing: "ringing"
    case .suppressed: "suppressed"
    case .stopped: "stopped"
    case .missed: "missed"
    case .missedAcknowledged: "missed_acknowledged"
    case .missedCallAcknowledged: "missed_call_acknowledged"
    case .ignored: "ignored"
    case .patternFallback: "pattern_fallback"
    case .callsRefused: "calls_refused"
    case .doNotDisturbEnded: "dnd_ended"
    }
  }

  /// One JSON object, keys in a fixed order: `event`, `at` (ISO 8601, UTC, milliseconds), `call` (`id`,
  /// `caller`, `name`, `level`, `sent_at`; only `id` for stopped and ignored), then the event's own fields:
  ///
  /// - ringing: `boards`, `pattern` (a slot number, a name, or "inline"), `cap_ms`, `silent`
  /// - suppressed, stopped, missed, ignored: `reason`
  /// - missed_acknowledged: `count`
  /// - missed_call_acknowledged: `call` (`id` only)
  /// - pattern_fallback: `board`, `pattern` (what the call asked for, as in ringing), `played` (what the
  ///   board plays instead), `reason`
  /// - calls_refused: `call` is the first refused call, then `source`, `count` (refused since `since`),
  ///   `since`, `reason` (`too-many-calls`)
  /// - dnd_ended: `mode` (the switched mode that ended), `until` (when it was to end); the configured mode
  ///   applies again
  public static func json(_ event: EngineEvent, at date: Date) -> String {
    var line = JSONObjectWriter()
    line.string("event", name(of: event))
    line.string("at", Timestamp.iso8601(date))
    switch event {
    case .ringing(let call, let boards, let pattern, let capMs, let silent):
      line.object("call") { write(call, to: &$0) }
      line.strings("boards", boards)
      write(pattern, as: "pattern", to: &line)
      line.number("cap_ms", capMs)
      line.bool("silent", silent)
    case .suppressed(let call, let reason):
      line.object("call") { write(call, to: &$0) }
      line.string("reason", reason.rawValue)
    case .stopped(let callID, let reason):
      line.object("call") { $0.string("id", callID) }
      line.string("reason", reason.rawValue)
    case .missed(let call, let reason):
      line.object("call") { write(call, to: &$0) }
      line.string("reason", reason.rawValue)
    case .missedAcknowledged(let count):
      line.number("count", count)
    case .missedCallAcknowledged(let callID):
      line.object("call") { $0.string("id", callID) }
    case .ignored(let callID, let reason):
      line.object("call") { $0.string("id", callID) }
      line.string("reason", reason.rawValue)
    case .patternFallback(let callID, let board, let requested, let played, let reason):
      line.object("call") { $0.string("id", callID) }
      line.string("board", board)
      write(requested, as: "pattern", to: &line)
      line.string("played", played)
      line.string("reason", reason)
    case .callsRefused(let source, let count, let first, let since):
      line.object("call") { write(first, to: &$0) }
      line.string("source", source.rawValue)
      line.number("count", count)
      line.string("since", Timestamp.iso8601(since))
      line.string("reason", IgnoredReason.tooManyCalls.rawValue)
    case .doNotDisturbEnded(let mode, let until):
      line.string("mode", mode.rawValue)
      line.string("until", Timestamp.iso8601(until))
    }
    return line.finish()
  }

  /// One readable line, the time in `timeZone`; ids, names, numbers and pattern names are shown safely
  /// (control characters and terminal escapes escaped, long values cut; see ``DisplayText``):
  ///
  /// ```text
  /// 22:00:01 ringing c1 Alice (+4930123) on desk, bed: pattern office, 30 s
  /// 22:00:09 stopped c1: hangup
  /// ```
  public static func text(_ event: EngineEvent, at date: Date, timeZone: TimeZone = .current) -> String {
    let time = clock(date, timeZone)
    switch event {
    case .ringing(let call, let boards, let pattern, let capMs, let silent):
      // No board connected yet: the call waits for one and rings on it within its cap.
      let boardList = boards.isEmpty ? "(waiting for a board)" : "on " + boards.map(shown).joined(separator: ", ")
      var line = "\(time) ringing \(shown(call.id)) \(caller(call)) \(boardList): "
      line += "\(patternText(pattern)), \(seconds(capMs))"
      if call.level != .active { line += ", \(call.level.rawValue)" }
      if silent { line += ", silent (motor only)" }
      return line
    case .suppressed(let call, let reason):
      return "\(time) suppressed \(shown(call.id)) \(caller(call)): \(reason.rawValue)"
    case .stopped(let callID, let reason):
      return "\(time) stopped \(shown(callID)): \(reason.rawValue)"
    case .missed(let call, let reason):
      return "\(time) missed \(shown(call.id)) \(caller(call)): \(reason.rawValue)"
    case .missedAcknowledged(let count):
      return "\(time) missed calls acknowledged: \(count)"
    case .missedCallAcknowledged(let callID):
      return "\(time) missed call acknowledged: \(shown(callID))"
    case .ignored(let callID, let reason):
      return "\(time) ignored \(shown(callID)): \(reason.rawValue)"
    case .patternFallback(let callID, let board, let requested, let played, let reason):
      return
        "\(time) fallback \(shown(callID)) on \(shown(board)): plays \(shown(played)) instead of \(patternText(requested)): \(DisplayText.safe(reason))"
    case .callsRefused(let source, let count, let first, let since):
      let calls = count == 1 ? "1 call" : "\(count) calls"
      return
        "\(time) refused \(calls) from \(shown(source.rawValue)) since \(clock(since, timeZone)), the first \(shown(first.id)) \(caller(first)): \(IgnoredReason.tooManyCalls.rawValue)"
    case .doNotDisturbEnded(let mode, _):
      return "\(time) do-not-disturb \(mode.rawValue) ended: as configured again"
    }
  }

  /// A call's members: `id`, `caller`, `name`, `level`, `sent_at`.
  private static func write(_ call: IncomingCall, to object: inout JSONObjectWriter) {
    object.string("id", call.id)
    object.string("caller", call.callerNumber)
    object.string("name", call.callerName)
    object.string("level", call.level.rawValue)
    object.string("sent_at", call.sentAt.map(Timestamp.iso8601))
  }

  /// A pattern as a member: a slot number, a name, or "inline".
  private static func write(_ pattern: PatternReference, as key: StaticString, to object: inout JSONObjectWriter) {
    switch pattern {
    case .slot(let slot): object.number(key, slot)
    case .named(let name): object.string(key, name)
    case .inline: object.string(key, "inline")
    }
  }

  private static func patternText(_ pattern: PatternReference) -> String {
    switch pattern {
    case .slot(let slot): "pattern slot \(slot)"
    case .named(let name): "pattern \(shown(name))"
    case .inline: "inline pattern"
    }
  }

  /// An id, name or number from outside as it may be printed: control characters and terminal escapes
  /// escaped, at most ``DisplayText/excerptLimit`` characters.
  private static func shown(_ text: String) -> String { DisplayText.excerpt(text) }

  /// "Alice (+4930123)", "Alice", "+4930123", or "withheld"; shown safely.
  private static func caller(_ call: IncomingCall) -> String {
    switch (call.callerName.map(shown), call.callerNumber.map(shown)) {
    case (let name?, let number?): "\(name) (\(number))"
    case (let name?, nil): name
    case (nil, let number?): number
    case (nil, nil): "withheld"
    }
  }

  /// "30 s", "12.5 s", "0.25 s".
  private static func seconds(_ ms: UInt64) -> String {
    var text = "\(ms / 1_000)"
    if ms % 1_000 != 0 {
      var fraction = String(ms % 1_000)
      fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
      while fraction.hasSuffix("0") { fraction.removeLast() }
      text += "." + fraction
    }
    return text + " s"
  }

  /// HH:MM:SS in the time zone.
  private static func clock(_ date: Date, _ timeZone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
    func pad(_ value: Int?) -> String {
      let value = value ?? 0
      return value < 10 ? "0\(value)" : "\(value)"
    }
    return "\(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second))"
  }
}
