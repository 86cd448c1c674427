import CallAlertEngine
import CallAlertText
// Full Foundation, not FoundationEssentials: the time-zone database (ICU's), for quiet hours in a named zone.
import Foundation
internal import Yams

/// The `do_not_disturb:` section.
extension ConfigParser {
  /// The keys of `do_not_disturb:`.
  static let doNotDisturbKeys = [
    "mode", "time_zone", "quiet_hours", "allowed_callers", "repeated_callers", "time_sensitive", "silent",
  ]

  /// Day names to Foundation's weekday numbers (1 = Sunday).
  static let days: [(String, [Int])] = [
    ("mon", [2]), ("tue", [3]), ("wed", [4]), ("thu", [5]), ("fri", [6]), ("sat", [7]), ("sun", [1]),
    ("monday", [2]), ("tuesday", [3]), ("wednesday", [4]), ("thursday", [5]), ("friday", [6]), ("saturday", [7]),
    ("sunday", [1]), ("weekdays", [2, 3, 4, 5, 6]), ("weekends", [1, 7]), ("daily", Array(1...7)),
  ]

  mutating func doNotDisturb(_ node: Node) -> DoNotDisturbConfiguration {
    var result = DoNotDisturbConfiguration()
    guard let fields = mapping(node, "do_not_disturb", example: "'mode: scheduled' and 'quiet_hours:'") else {
      return result
    }
    checkKeys(fields, allowed: ConfigParser.doNotDisturbKeys, "do_not_disturb")
    let modeNode = fields.value("mode")
    if let modeNode,
      let mode = choice(
        modeNode, "do_not_disturb.mode", [("off", DoNotDisturbMode.off), ("on", .on), ("scheduled", .scheduled)])
    {
      result.mode = mode
    }
    if let zoneNode = fields.value("time_zone"), let name = nonEmptyText(zoneNode, "do_not_disturb.time_zone") {
      if let zone = TimeZone(identifier: name) {
        result.timeZone = zone
      } else {
        let hint = Suggestion.hint(for: name, in: TimeZone.knownTimeZoneIdentifiers)
        error(
          zoneNode, "do_not_disturb.time_zone",
          "unknown time zone '\(DisplayText.excerpt(name))'\(hint); use an IANA name such as Europe/Berlin")
      }
    }
    var scheduleReadable = true
    if let hoursNode = fields.value("quiet_hours") {
      if let windows = quietHours(hoursNode) { result.schedule = windows } else { scheduleReadable = false }
    }
    if result.mode == .scheduled, result.schedule.isEmpty, scheduleReadable, let modeNode {
      error(
        modeNode, "do_not_disturb.mode",
        "mode scheduled needs quiet_hours; add a window such as '- {from: \"22:00\", to: \"07:00\"}', or use on or off")
    }
    if let callersNode = fields.value("allowed_callers"),
      let callers = stringList(callersNode, "do_not_disturb.allowed_callers", example: "[\"+4930123456\"]")
    {
      result.allowedCallers = callers.map(\.text)
      callerEntries.append(
        (
          .allowedCallers,
          callers.enumerated().map {
            CallerEntry(text: $1.text, node: $1.node, field: "do_not_disturb.allowed_callers[\($0)]")
          }
        ))
    }
    if let repeatedNode = fields.value("repeated_callers") {
      if let text = repeatedNode.scalar?.string, ["off", "false", "no"].contains(text.lowercased()) {
        result.repeatedCallerWindowMs = nil
      } else if let window = duration(repeatedNode, "do_not_disturb.repeated_callers") {
        if window.ms > DoNotDisturbConfiguration.maximumRepeatedCallerWindowMs {
          error(
            repeatedNode, "do_not_disturb.repeated_callers",
            "repeated_callers \(window.text) is above the 15 min maximum")
        } else if window.ms == 0 {
          error(
            repeatedNode, "do_not_disturb.repeated_callers",
            "repeated_callers \(window.text) is no window; write off to turn it off")
        } else {
          result.repeatedCallerWindowMs = window.ms
        }
      }
    }
    if let node = fields.value("time_sensitive"),
      let allow = choice(node, "do_not_disturb.time_sensitive", [("breaks_through", true), ("held", false)])
    {
      result.allowTimeSensitive = allow
    }
    if let node = fields.value("silent"), let silent = bool(node, "do_not_disturb.silent") { result.silent = silent }
    return result
  }

  /// `quiet_hours:`, a list of windows; nil when any is broken.
  private mutating func quietHours(_ node: Node) -> [QuietHoursWindow]? {
    let field = "do_not_disturb.quiet_hours"
    guard
      let items = sequence(
        node, field, example: "a list of windows such as '- {days: weekdays, from: \"22:00\", to: \"07:00\"}'")
    else { return nil }
    var windows: [QuietHoursWindow] = []
    for (index, item) in items.enumerated() {
      let path = "\(field)[\(index)]"
      guard let fields = mapping(item, path, example: "'days:', 'from:' and 'to:'") else { continue }
      checkKeys(fields, allowed: ["days", "from", "to"], path)
      let weekdays = fields.value("days").map { days($0, "\(path).days") } ?? Set(1...7)
      guard let fromNode = fields.value("from"), let toNode = fields.value("to") else {
        error(item, path, "a window needs 'from:' and 'to:', e.g. from: \"22:00\", to: \"07:00\"")
        continue
      }
      let start = minute(fromNode, "\(path).from", allowMidnightEnd: false)
      let end = minute(toNode, "\(path).to", allowMidnightEnd: true)
      guard let weekdays, let start, let end else { continue }
      windows.append(QuietHoursWindow(weekdays: weekdays, startMinute: start, endMinute: end))
    }
    return windows.count == items.count ? windows : nil
  }

  /// `days:`: a list of day names, or one of weekdays, weekends, daily (or a single day).
  private mutating func days(_ node: Node, _ field: String) -> Set<Int>? {
    let names = ConfigParser.days.map(\.0)
    func day(_ node: Node, _ field: String) -> [Int]? {
      guard let text = nonEmptyText(node, field) else { return nil }
      if let match = ConfigParser.days.first(where: { $0.0 == text.lowercased() }) { return match.1 }
      error(
        node, field,
        "'\(DisplayText.excerpt(text))' is not a day\(Suggestion.hint(for: text, in: names)); write mon, tue, wed, thu, fri, sat, sun, "
          + "or weekdays, weekends, daily")
      return nil
    }
    if node.scalar != nil { return day(node, field).map(Set.init) }
    guard let items = sequence(node, field, example: "a list of days such as [mon, tue] or weekdays") else {
      return nil
    }
    guard !items.isEmpty else {
      error(node, field, "the list is empty; name at least one day, or remove 'days:' for every day")
      return nil
    }
    var result: Set<Int> = []
    var valid = true
    for (index, item) in items.enumerated() {
      if let days = day(item, "\(field)[\(index)]") { result.formUnion(days) } else { valid = false }
    }
    return valid ? result : nil
  }

  /// `HH:MM` as minutes after midnight; `24:00` (as 0, the next midnight) only for an end.
  private mutating func minute(_ node: Node, _ field: String, allowMidnightEnd: Bool) -> Int? {
    guard let text = nonEmptyText(node, field) else { return nil }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    if parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
      parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }), let hour = Int(parts[0]),
      let minute = Int(parts[1])
    {
      if hour <= 23 && minute <= 59 { return hour * 60 + minute }
      if allowMidnightEnd && hour == 24 && minute == 0 { return 0 }
    }
    error(
      node, field,
      "'\(DisplayText.excerpt(text))' is not a time of day; write HH:MM, e.g. \"22:00\" "
        + "(00:00 to 23:59\(allowMidnightEnd ? ", or 24:00" : ""))"
    )
    return nil
  }
}
