import CallAlertEngine
import CallAlertProtocol
import CallAlertValues
import Foundation
import Testing

/// Valid values of every kind, read through the public parser.
@Suite struct ConfigValueTests {
  @Test(
    arguments: [
      ("30s", 30_000), ("2500ms", 2_500), ("0.5m", 30_000), ("30", 30_000), ("1.5s", 1_500), ("12.25", 12_250),
      ("1 s", 1_000), ("250 ms", 250), ("20 sec", 20_000), ("1ms", 1), ("30S", 30_000),
    ] as [(String, UInt64)])
  func capDurations(text: String, ms: UInt64) throws {
    #expect(try parseConfig("cap: \(text)").engine.capMs == ms)
  }

  @Test(
    arguments: [("3m", 180_000), ("1h", 3_600_000), ("90", 90_000), ("2 min", 120_000), ("0s", 0)] as [(String, UInt64)]
  )
  func tombstoneDurations(text: String, ms: UInt64) throws {
    #expect(try parseConfig("tombstone: \(text)").engine.tombstoneMs == ms)
  }

  @Test(
    arguments: [
      ("weekdays", [2, 3, 4, 5, 6]), ("weekends", [1, 7]), ("daily", [1, 2, 3, 4, 5, 6, 7]), ("sun", [1]),
      ("[mon, wed]", [2, 4]), ("[Saturday, weekdays]", [2, 3, 4, 5, 6, 7]), ("[FRI, fri]", [6]), ("Monday", [2]),
    ] as [(String, Set<Int>)])
  func quietHourDays(days: String, weekdays: Set<Int>) throws {
    let config = try parseConfig(
      "do_not_disturb:\n  quiet_hours:\n    - {days: \(days), from: \"22:00\", to: \"07:00\"}")
    #expect(
      config.engine.doNotDisturb.schedule == [QuietHoursWindow(weekdays: weekdays, startMinute: 1_320, endMinute: 420)])
  }

  @Test(arguments: [
    ("22:00", "07:00", 1_320, 420), ("00:00", "24:00", 0, 0), ("7:05", "9:30", 425, 570), ("23:59", "00:00", 1_439, 0),
    ("12:00", "12:00", 720, 720),
  ])
  func quietHourTimes(from: String, to: String, start: Int, end: Int) throws {
    let config = try parseConfig("do_not_disturb:\n  quiet_hours:\n    - from: \"\(from)\"\n      to: \"\(to)\"")
    #expect(config.engine.doNotDisturb.schedule == [QuietHoursWindow(startMinute: start, endMinute: end)])
  }

  @Test func unquotedTimesAreReadAsWritten() throws {
    // YAML 1.1 reads 22:00 as the sexagesimal number 1320; the parser takes the text as written.
    let config = try parseConfig("do_not_disturb:\n  quiet_hours:\n    - {from: 22:00, to: 07:00}")
    #expect(config.engine.doNotDisturb.schedule == [QuietHoursWindow(startMinute: 1_320, endMinute: 420)])
  }

  @Test(arguments: [
    ("off", DoNotDisturbMode.off), ("on", .on), ("scheduled", .scheduled),
  ])
  func doNotDisturbModes(text: String, mode: DoNotDisturbMode) throws {
    let config = try parseConfig("do_not_disturb:\n  mode: \(text)\n  quiet_hours: [{from: \"22:00\", to: \"07:00\"}]")
    #expect(config.engine.doNotDisturb.mode == mode)
  }

  @Test(
    arguments: [("off", nil), ("false", nil), ("1m", 60_000), ("15m", 900_000), ("90s", 90_000)] as [(String, UInt64?)])
  func repeatedCallerWindows(text: String, ms: UInt64?) throws {
    #expect(
      try parseConfig("do_not_disturb: {repeated_callers: \(text)}").engine.doNotDisturb.repeatedCallerWindowMs == ms)
  }

  @Test(arguments: [("breaks_through", true), ("held", false)])
  func timeSensitiveCalls(text: String, allowed: Bool) throws {
    #expect(
      try parseConfig("do_not_disturb: {time_sensitive: \(text)}").engine.doNotDisturb.allowTimeSensitive == allowed)
  }

  @Test(arguments: [("true", true), ("yes", true), ("on", true), ("false", false), ("No", false), ("off", false)])
  func booleans(text: String, value: Bool) throws {
    #expect(try parseConfig("do_not_disturb: {silent: \(text)}").engine.doNotDisturb.silent == value)
    #expect(try parseConfig("boards: [{name: a, vibrate_only: \(text)}]").engine.boards[0].vibrateOnly == value)
  }

  @Test(arguments: [("UTC", "GMT"), ("Europe/Berlin", "Europe/Berlin"), ("America/New_York", "America/New_York")])
  func timeZones(name: String, identifier: String) throws {
    #expect(
      try parseConfig("do_not_disturb: {time_zone: \(name)}").engine.doNotDisturb.timeZone.identifier == identifier)
  }

  @Test(arguments: [("DE", "DE"), ("us", "US"), ("Gb", "GB")])
  func regions(text: String, code: String) throws {
    #expect(try parseConfig("region: \(text)").engine.defaultRegion == code)
  }

  @Test(arguments: [
    ("{name: a}", AlertBoard(name: "a", port: "auto")),
    ("{name: a, port: /dev/ttyACM0}", AlertBoard(name: "a", port: "/dev/ttyACM0")),
    ("{name: a, serial: CA-7}", AlertBoard(name: "a", serialNumber: "CA-7")),
    ("{name: a, serial: 0042}", AlertBoard(name: "a", serialNumber: "0042")),
    ("{name: a, port: auto, serial: CA-7}", AlertBoard(name: "a", port: "auto", serialNumber: "CA-7")),
    ("{name: bed shaker, vibrate_only: true}", AlertBoard(name: "bed shaker", port: "auto", vibrateOnly: true)),
  ])
  func boards(yaml: String, board: AlertBoard) throws {
    #expect(try parseConfig("boards: [\(yaml)]").engine.boards == [board])
  }

  @Test(arguments: [
    ("3", PatternReference.slot(3)), ("0", .slot(0)), ("63", .slot(63)), ("office", .named("office")),
    ("\"3\"", .slot(3)), ("ring 2", .named("ring 2")),
  ])
  func patternReferences(text: String, reference: PatternReference) throws {
    let config = try parseConfig("patterns:\n  default: \(text)\n  rules: [{levels: [critical], pattern: \(text)}]")
    #expect(config.engine.defaultPattern == reference)
    #expect(config.engine.patternRules == [PatternRule(levels: [.critical], pattern: reference)])
  }

  @Test(arguments: InterruptionLevel.allCases)
  func ruleLevels(level: InterruptionLevel) throws {
    let config = try parseConfig("patterns: {rules: [{levels: [\(level.rawValue)], pattern: x}]}")
    #expect(config.engine.patternRules.first?.levels == [level])
  }

  @Test(arguments: [
    ("off", IndicatorSetting(led: 0, mode: .off)),
    ("{blink: 100ms/900ms}", IndicatorSetting(led: 0, mode: .blink, onMs: 100, offMs: 900)),
    ("{led: 2}", IndicatorSetting(led: 2, mode: .blink, onMs: 150, offMs: 1_850)),
    ("{mode: on, led: 1}", IndicatorSetting(led: 1, mode: .on, onMs: 150, offMs: 1_850)),
    ("{blink: 1s/4s}", IndicatorSetting(led: 0, mode: .blink, onMs: 1_000, offMs: 4_000)),
  ])
  func missedIndicators(yaml: String, setting: IndicatorSetting) throws {
    #expect(try parseConfig("missed_indicator: \(yaml)").engine.missedIndicator == setting)
  }

  @Test(
    arguments: [("\"0600\"", 0o600), ("0660", 0o660), ("600", 0o600), ("\"0o640\"", 0o640), ("\"0777\"", 0o777)]
      as [(String, UInt16)])
  func socketModes(text: String, mode: UInt16) throws {
    let allowOthers = mode & 0o077 == 0 ? "" : ", allow_others: true"
    #expect(try parseConfig("socket: {mode: \(text)\(allowOthers)}").socketMode == mode)
  }

  @Test(arguments: [("json", EventsFormat.json), ("text", .text)])
  func eventFormats(text: String, format: EventsFormat) throws {
    #expect(try parseConfig("events: {format: \(text)}").eventsFormat == format)
  }

  @Test func anchorsAndAliasesAreFollowed() throws {
    let config = try parseConfig(
      "do_not_disturb:\n  allowed_callers: &family [\"+4930111\", \"+4930222\"]\n"
        + "patterns:\n  rules:\n    - callers: *family\n      pattern: family\n"
    )
    #expect(config.engine.doNotDisturb.allowedCallers == ["+4930111", "+4930222"])
    #expect(config.engine.patternRules == [PatternRule(callers: ["+4930111", "+4930222"], pattern: .named("family"))])
  }

  @Test func callerNumbersKeepTheirDigits() throws {
    // Unquoted, +4930123 and 0049 are YAML integers; a number must keep its plus sign and leading zeros. Each is
    // read into E.164 (a national number in the default region, US).
    let config = try parseConfig("do_not_disturb: {allowed_callers: [+4930123, 004930123, 030 1234]}")
    #expect(config.engine.doNotDisturb.allowedCallers == ["+4930123", "+4930123", "+10301234"])
  }
}
