import CallAlertText
import Testing

/// Every kind of mistake is reported at the exact line and column, with its field path and a message that
/// says what to write.
@Suite struct ConfigErrorTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var yaml: String
    var location: String
    var field: String
    var message: String
    var testDescription: String { "\(field.isEmpty ? "(file)" : field): \(message.prefix(40))" }

    init(_ yaml: String, _ lineColumn: String, _ field: String, _ message: String) {
      self.yaml = yaml
      self.location = "/etc/callalert/config.yaml:\(lineColumn)"
      self.field = field
      self.message = message
    }
  }

  static let cases: [Case] = [
    // YAML itself.
    Case(
      "cap: 30s\nboards: [desk\n", "3:1", "",
      "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 2, column 9)"),
    Case("cap: 30s\ncap: 20s\n", "1:1", "cap", "duplicate key 'cap' in one mapping; each key may appear once"),
    Case("- cap: 30s\n", "1:1", "", "the file must be a mapping of sections such as 'cap: 30s', not a list"),
    Case("just words\n", "1:1", "", "the file must be a mapping of sections such as 'cap: 30s', not 'just words'"),
    // Unknown keys, with the closest known key.
    Case("caps: 30s\n", "1:1", "caps", "unknown key 'caps' at the top; did you mean 'cap'?"),
    Case(
      "doNotDisturb: {}\n", "1:1", "doNotDisturb",
      "unknown key 'doNotDisturb' at the top; did you mean 'do_not_disturb'?"),
    Case(
      "ringtone: x\n", "1:1", "ringtone",
      "unknown key 'ringtone' at the top; expected one of cap, tombstone, boards, patterns, do_not_disturb, region, "
        + "missed_indicator, socket, history, events, push_rules, sources, http, mqtt, sip, kdeconnect"
    ),
    Case(
      "do_not_disturb:\n  quite_hours: []\n", "2:3", "do_not_disturb.quite_hours",
      "unknown key 'quite_hours' in do_not_disturb; did you mean 'quiet_hours'?"),
    Case(
      "boards:\n  - name: a\n    vibrate-only: true\n", "3:5", "boards[0].vibrate-only",
      "unknown key 'vibrate-only' in boards[0]; did you mean 'vibrate_only'?"),
    // Lights.
    Case(
      "boards:\n  - name: lamp\n    kind: kuandoo\n", "3:11", "boards[0].kind",
      "'kuandoo' is not one of serial, kuando, blink1, luxafor, embrava; did you mean 'kuando'?"),
    Case(
      "boards:\n  - name: lamp\n    kind: luxafor\n    ringtone: quiet\n", "4:15", "boards[0].ringtone",
      "a Luxafor plays no sound; only a Kuando (kind: kuando) has ringtones"),
    Case(
      "boards:\n  - name: lamp\n    kind: kuando\n    ringtone: telephoneNordik\n", "4:15", "boards[0].ringtone",
      "'telephoneNordik' is not one of off, openOffice, quiet, funky, fairyTale, kuandoTrain, telephoneNordic, "
        + "telephoneOriginal, pickMeUp, buzz; did you mean 'telephoneNordic'?"),
    Case(
      "boards:\n  - name: lamp\n    kind: kuando\n    color: blu\n", "4:12", "boards[0].color",
      "'blu' is not a colour; did you mean 'blue'?; write one of red, green, blue, yellow, orange, purple, cyan, "
        + "white or #rrggbb"),
    Case(
      "boards:\n  - name: desk\n    color: red\n", "3:5", "boards[0].color",
      "'color' is for lights; add 'kind:' (kuando, blink1, luxafor, embrava)"),
    Case(
      "boards:\n  - name: lamp\n    kind: kuando\n    volume: 9\n", "4:13", "boards[0].volume",
      "'9' is not a whole number from 0 to 7"),
    Case(
      "boards:\n  - name: lamp\n    kind: blink1\n    patterns:\n      office: {colour: red}\n", "5:16",
      "boards[0].patterns.office.colour", "unknown key 'colour' in boards[0].patterns.office; did you mean 'color'?"),
    Case(
      "do_not_disturb:\n  quiet_hours:\n    - {from: \"22:00\", to: \"07:00\", day: mon}\n", "3:36",
      "do_not_disturb.quiet_hours[0].day", "unknown key 'day' in do_not_disturb.quiet_hours[0]; did you mean 'days'?"),
    // Durations and their ranges.
    Case("cap: 45s\n", "1:6", "cap", "cap 45s is above the 30 s maximum"),
    Case("cap: 1m\n", "1:6", "cap", "cap 1m is above the 30 s maximum"),
    Case("cap: 0s\n", "1:6", "cap", "cap 0s would never ring; use 1s to 30s"),
    Case(
      "cap: fast\n", "1:6", "cap", "'fast' is not a duration; write e.g. 30s, 2500ms or 3m (a bare number is seconds)"),
    Case(
      "cap: 1.5ms\n", "1:6", "cap", "'1.5ms' is not a duration; write e.g. 30s, 2500ms or 3m (a bare number is seconds)"
    ),
    Case(
      "cap: -5s\n", "1:6", "cap", "'-5s' is not a duration; write e.g. 30s, 2500ms or 3m (a bare number is seconds)"),
    Case("cap: [30s]\n", "1:6", "cap", "must be a single value, not a list"),
    Case("tombstone: 2h\n", "1:12", "tombstone", "tombstone 2h is above the 1 h maximum"),
    // Boards.
    Case("boards: desk\n", "1:9", "boards", "boards must be a list of boards such as '- name: desk', not 'desk'"),
    Case(
      "boards: []\n", "1:9", "boards",
      "the list is empty; list at least one board, or remove 'boards:' for one found automatically"),
    Case("boards:\n  - port: auto\n", "2:5", "boards[0]", "a board needs 'name:' (used in rules, events and status)"),
    Case(
      "boards:\n  - name: desk\n  - name: bed\n  - name: desk\n", "4:11", "boards[2].name",
      "board name 'desk' is already used by boards[0] (line 2); names must be unique"),
    Case(
      "boards:\n  - name: desk\n    port: ttyACM0\n", "3:11", "boards[0].port",
      "'ttyACM0' is not a device path; write a path such as /dev/ttyACM0, or auto"),
    Case("boards:\n  - name: \"\"\n", "2:11", "boards[0].name", "is empty; give a value or remove the key"),
    Case(
      "boards:\n  - name: desk\n    vibrate_only: maybe\n", "3:19", "boards[0].vibrate_only",
      "'maybe' is not true or false"),
    Case(
      "boards:\n  - desk\n", "2:5", "boards[0]",
      "boards[0] must be a mapping of 'name: desk' and 'port: auto', not 'desk'"),
    // Patterns.
    Case(
      "boards: [{name: desk}]\npatterns:\n  rules:\n    - {boards: [desk, kitchen]}\n", "4:23",
      "patterns.rules[0].boards[1]", "unknown board 'kitchen'; boards are desk"),
    Case(
      "boards: [{name: desk}, {name: bed}]\npatterns:\n  rules:\n    - {boards: [beds]}\n", "4:17",
      "patterns.rules[0].boards[0]", "unknown board 'beds'; did you mean 'bed'?; boards are desk, bed"),
    Case(
      "patterns:\n  rules:\n    - {boards: [desk]}\n", "3:17", "patterns.rules[0].boards[0]",
      "unknown board 'desk'; boards are board"),
    Case(
      "patterns:\n  rules:\n    - levels: [critical]\n", "3:7", "patterns.rules[0]",
      "a rule needs 'pattern:', 'boards:' or 'buzzer_only:' (or several); this one would change nothing"),
    Case(
      "patterns:\n  rules:\n    - {levels: [urgent], pattern: x}\n", "3:17", "patterns.rules[0].levels[0]",
      "'urgent' is not one of passive, active, time-sensitive, critical"),
    Case(
      "patterns:\n  rules:\n    - {levels: [time_sensitive], pattern: x}\n", "3:17", "patterns.rules[0].levels[0]",
      "'time_sensitive' is not one of passive, active, time-sensitive, critical; did you mean 'time-sensitive'?"),
    Case(
      "patterns:\n  rules:\n    - {levels: critical, pattern: x}\n", "3:16", "patterns.rules[0].levels",
      "patterns.rules[0].levels must be a list such as [critical, time-sensitive], not 'critical'"),
    Case("patterns:\n  default: 64\n", "2:12", "patterns.default", "slot 64 is out of range; a table has slots 0-63"),
    Case(
      "patterns:\n  rules: {pattern: x}\n", "2:10", "patterns.rules",
      "patterns.rules must be a list of rules such as '- levels: [critical]', not a mapping"),
    // Do-not-disturb.
    Case(
      "do_not_disturb: on\n", "1:17", "do_not_disturb",
      "do_not_disturb must be a mapping of 'mode: scheduled' and 'quiet_hours:', not 'on'"),
    Case(
      "do_not_disturb:\n  mode: sometimes\n", "2:9", "do_not_disturb.mode",
      "'sometimes' is not one of off, on, scheduled"),
    Case(
      "do_not_disturb:\n  mode: schedule\n", "2:9", "do_not_disturb.mode",
      "'schedule' is not one of off, on, scheduled; did you mean 'scheduled'?"),
    Case(
      "do_not_disturb:\n  mode: scheduled\n", "2:9", "do_not_disturb.mode",
      "mode scheduled needs quiet_hours; add a window such as '- {from: \"22:00\", to: \"07:00\"}', or use on or off"),
    Case(
      "do_not_disturb:\n  time_zone: Europe/Berln\n", "2:14", "do_not_disturb.time_zone",
      "unknown time zone 'Europe/Berln'; did you mean 'Europe/Berlin'?; use an IANA name such as Europe/Berlin"),
    Case(
      "do_not_disturb:\n  time_zone: Mars/Olympus\n", "2:14", "do_not_disturb.time_zone",
      "unknown time zone 'Mars/Olympus'; use an IANA name such as Europe/Berlin"),
    Case(
      "do_not_disturb:\n  quiet_hours:\n    - from: \"25:00\"\n      to: \"07:00\"\n", "3:13",
      "do_not_disturb.quiet_hours[0].from", "'25:00' is not a time of day; write HH:MM, e.g. \"22:00\" (00:00 to 23:59)"
    ),
    Case(
      "do_not_disturb:\n  quiet_hours:\n    - from: \"22:00\"\n      to: 7pm\n", "4:11",
      "do_not_disturb.quiet_hours[0].to",
      "'7pm' is not a time of day; write HH:MM, e.g. \"22:00\" (00:00 to 23:59, or 24:00)"),
    Case(
      "do_not_disturb:\n  quiet_hours:\n    - from: \"24:00\"\n      to: \"07:00\"\n", "3:13",
      "do_not_disturb.quiet_hours[0].from", "'24:00' is not a time of day; write HH:MM, e.g. \"22:00\" (00:00 to 23:59)"
    ),
    Case(
      "do_not_disturb:\n  quiet_hours:\n    - from: \"22:00\"\n", "3:7", "do_not_disturb.quiet_hours[0]",
      "a window needs 'from:' and 'to:', e.g. from: \"22:00\", to: \"07:00\""),
    Case(
      "do_not_disturb:\n  quiet_hours:\n    - {days: [mon, funday], from: \"22:00\", to: \"07:00\"}\n", "3:20",
      "do_not_disturb.quiet_hours[0].days[1]",
      "'funday' is not a day; did you mean 'sunday'?; write mon, tue, wed, thu, fri, sat, sun, "
        + "or weekdays, weekends, daily"
    ),
    Case(
      "do_not_disturb:\n  quiet_hours:\n    - {days: [], from: \"22:00\", to: \"07:00\"}\n", "3:14",
      "do_not_disturb.quiet_hours[0].days",
      "the list is empty; name at least one day, or remove 'days:' for every day"),
    Case(
      "do_not_disturb:\n  repeated_callers: 20m\n", "2:21", "do_not_disturb.repeated_callers",
      "repeated_callers 20m is above the 15 min maximum"),
    Case(
      "do_not_disturb:\n  repeated_callers: 0s\n", "2:21", "do_not_disturb.repeated_callers",
      "repeated_callers 0s is no window; write off to turn it off"),
    Case(
      "do_not_disturb:\n  time_sensitive: yes\n", "2:19", "do_not_disturb.time_sensitive",
      "'yes' is not one of breaks_through, held"),
    Case(
      "do_not_disturb:\n  allowed_callers: \"+4930123\"\n", "2:20", "do_not_disturb.allowed_callers",
      "do_not_disturb.allowed_callers must be a list such as [\"+4930123456\"], not '+4930123'"),
    // Region, indicator, socket, history, events.
    Case(
      "region: Germany\n", "1:9", "region",
      "'Germany' is not a region whose calling code CallAlert knows; use a two-letter ISO 3166 code such as DE, GB "
        + "(or UK) or US (the list is in docs/CONFIG.md)"),
    Case(
      "region: XX\n", "1:9", "region",
      "'XX' is not a region whose calling code CallAlert knows; use a two-letter ISO 3166 code such as "
        + "DE, GB (or UK) or US (the list is in docs/CONFIG.md)"),
    Case(
      "missed_indicator: {blink: 150ms}\n", "1:27", "missed_indicator.blink",
      "'150ms' is not on/off times; write e.g. 150ms/1850ms (each 1ms to 65s)"),
    Case(
      "missed_indicator: {blink: 0ms/100ms}\n", "1:27", "missed_indicator.blink",
      "'0ms/100ms' is not on/off times; write e.g. 150ms/1850ms (each 1ms to 65s)"),
    Case("missed_indicator: {led: 8}\n", "1:25", "missed_indicator.led", "'8' is not a whole number from 0 to 7"),
    Case(
      "missed_indicator: blink\n", "1:19", "missed_indicator",
      "missed_indicator must be a mapping of 'blink: 150ms/1850ms', or off, not 'blink'"),
    Case(
      "socket:\n  mode: \"0800\"\n", "2:9", "socket.mode",
      "'0800' is not octal permission bits; write e.g. \"0600\" (quoted)"),
    Case(
      "socket:\n  mode: \"0400\"\n", "2:9", "socket.mode",
      "mode 0400 would lock the daemon's own user out; keep the owner's 6, e.g. \"0600\" or \"0660\""),
    Case("socket:\n  path: \"\"\n", "2:9", "socket.path", "is empty; give a value or remove the key"),
    Case(
      "socket:\n  mode: \"0660\"\n", "2:9", "socket.mode",
      "mode 0660 lets other users connect (ring the boards, read callers' names and numbers); add "
        + "'allow_others: true' (or, for a group, 'group:') under socket: if that is meant, or use \"0600\""),
    Case(
      "socket:\n  mode: \"0606\"\n  allow_others: false\n", "2:9", "socket.mode",
      "mode 0606 lets other users connect (ring the boards, read callers' names and numbers); add "
        + "'allow_others: true' (or, for a group, 'group:') under socket: if that is meant, or use \"0600\""),
    Case("socket:\n  allow_others: maybe\n", "2:17", "socket.allow_others", "'maybe' is not true or false"),
    Case(
      "history: /var/lib/history.sqlite\n", "1:10", "history",
      "history must be a mapping of 'path: ~/callalert.sqlite', not '/var/lib/history.sqlite'"),
    Case("events:\n  format: xml\n", "2:11", "events.format", "'xml' is not one of json, text"),
    // Push rules.
    Case(
      "push_rules:\n  - {kind: call, id: data.id}\n", "2:5", "push_rules[0].match",
      "a rule needs 'match:' (e.g. match: {event: ring}); without it, it would take every payload"),
    Case(
      "push_rules:\n  - {match: {event: ring}, id: data.id}\n", "2:5", "push_rules[0].kind",
      "a rule needs 'kind: call' or 'kind: hangup'"),
    Case(
      "push_rules:\n  - {match: {event: ring}, kind: ring, id: data.id}\n", "2:34", "push_rules[0].kind",
      "'ring' is not one of call, hangup"),
    Case(
      "push_rules:\n  - {match: {event: ring}, kind: call, id: data..id}\n", "2:44", "push_rules[0].id",
      "'data..id' is not a JSON path; write e.g. data.call.id or items[0].id"),
    Case(
      "push_rules:\n  - {match: {event: ring}, kind: call, id: id, caller: \"a[x]\"}\n", "2:56", "push_rules[0].caller",
      "'a[x]' is not a JSON path; write e.g. data.call.id or items[0].id"),
    Case(
      "push_rules:\n  - {match: {}, kind: call, id: id}\n", "2:13", "push_rules[0].match",
      "'match:' is empty; give at least one condition, e.g. {event: ring}"),
    Case(
      "push_rules:\n  - match: [{path: event}]\n    kind: call\n    id: id\n", "2:13", "push_rules[0].match[0]",
      "a condition needs 'path:' and 'equals:'"),
    Case(
      "push_rules:\n  - match: [{path: event, equals: ring, note: x}]\n    kind: call\n    id: id\n", "2:41",
      "push_rules[0].match[0].note", "unknown key 'note' in push_rules[0].match[0]; expected one of path, equals"),
    Case(
      "push_rules:\n  - match: event\n    kind: call\n    id: id\n", "2:12", "push_rules[0].match",
      "push_rules[0].match must be a mapping such as {event: ring} or a list of {path:, equals:}, not 'event'"),
  ]

  @Test(arguments: cases)
  func theErrorNamesItsPlaceAndField(_ test: Case) {
    let errors = configErrors(test.yaml)
    #expect(errors.count == 1, "\(errors)")
    guard let error = errors.first else { return }
    #expect(error.location == test.location)
    #expect(error.field == test.field)
    #expect(error.message == test.message)
  }

  @Test func everyErrorIsReportedInFileOrder() {
    let yaml = """
      region: Germany
      cap: 45s
      boards:
        - name: desk
        - name: desk
      do_not_disturb:
        mode: sometimes
        quiet_hours:
          - {from: "25:00", to: "26:00"}
      events: {format: xml}
      """
    let errors = configErrors(yaml)
    #expect(
      errors.map(\.location)
        == [1, 2, 5, 7, 9, 9, 10].enumerated().map { index, line in
          let columns = [9, 6, 11, 9, 14, 27, 18]
          return "/etc/callalert/config.yaml:\(line):\(columns[index])"
        })
    #expect(
      errors.map(\.field) == [
        "region", "cap", "boards[1].name", "do_not_disturb.mode", "do_not_disturb.quiet_hours[0].from",
        "do_not_disturb.quiet_hours[0].to", "events.format",
      ])
    let description = InputErrors(errors).description
    #expect(description.hasSuffix("\n7 errors"))
    #expect(description.split(separator: "\n").count == 8)
  }

  @Test func oneErrorHasNoCountLine() {
    #expect(InputErrors([InputError(location: "f:1:1", field: "cap", message: "m")]).description == "f:1:1: cap: m")
  }

  @Test func rulesAreNotCheckedAgainstBoardsThatCouldNotBeRead() {
    // The boards list is broken; reporting every rule's board as unknown would bury the real error.
    let errors = configErrors(
      "boards:\n  - name: desk\n    port: ttyACM0\npatterns:\n  rules:\n    - {boards: [desk]}\n")
    #expect(errors.map(\.field) == ["boards[0].port"])
  }
}
