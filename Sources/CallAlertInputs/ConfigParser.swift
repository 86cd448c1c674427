import CallAlertEngine
import CallAlertProtocol
import CallAlertText
import CallAlertValues
internal import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One key of a YAML mapping with its value.
struct YAMLEntry {
  /// The key's text.
  var key: String
  /// The key node, for its location.
  var keyNode: Node
  /// The value.
  var value: Node
}

/// Reads a config file into a ``DaemonConfiguration``, collecting every error instead of stopping at the
/// first. The YAML is walked as nodes (Yams' `compose`), not decoded with `Codable`, because nodes keep
/// their marks: every error names the line and column of the value to change and its field path.
struct ConfigParser {
  /// The file's path as the user gave it.
  let file: String
  let environment: [String: String]
  let userID: UInt32
  /// The errors so far, with their line and column for sorting.
  var found: [(line: Int, column: Int, error: InputError)] = []
  /// Every pattern name the file uses, with its place, checked by the daemon against the known names.
  var patternNameUses: [PatternNameUse] = []

  /// Where caller numbers go once read into E.164.
  enum CallerTarget {
    case patternRule(Int)
    case allowedCallers
  }
  /// A caller number as written, with its place.
  struct CallerEntry {
    var text: String
    var node: Node
    var field: String
  }
  /// The caller numbers of rules and allowed callers, for ``normaliseCallers(into:)``.
  var callerEntries: [(CallerTarget, [CallerEntry])] = []

  /// The sections a file may have.
  static let sections = [
    "cap", "tombstone", "boards", "patterns", "do_not_disturb", "region", "missed_indicator", "socket", "history",
    "events", "push_rules", "sources", "http", "mqtt", "sip", "kdeconnect",
  ]

  init(file: String, environment: [String: String], userID: UInt32) {
    self.file = file
    self.environment = environment
    self.userID = userID
  }

  /// The errors in file order.
  var errors: [InputError] {
    found.enumerated().sorted { lhs, rhs in
      (lhs.element.line, lhs.element.column, lhs.offset) < (rhs.element.line, rhs.element.column, rhs.offset)
    }.map(\.element.error)
  }

  /// The text's YAML nodes: nil when it is not YAML (the error recorded at its place), `.some(nil)` when empty.
  mutating func compose(_ text: String) -> Node?? {
    do {
      // `.basic`: the parser reads every scalar as text itself, so Yams' implicit typing (a regular expression
      // per rule per scalar, run even for duplicate-key checks) would be pure cost. The encoding is named: left
      // to its default, Yams reads the whole process environment on every parse (its YAMS_DEFAULT_ENCODING).
      return .some(try Yams.compose(yaml: text, .basic, .default, .utf8))
    } catch {
      yamlError(error, text: text)
      return nil
    }
  }

  /// Parses the text; the result is only meaningful when ``errors`` is empty.
  mutating func parse(text: String) -> DaemonConfiguration {
    var config = DaemonConfiguration.defaults(environment: environment, userID: userID)
    guard case .some(let root?) = compose(text), !isNull(root) else { return config }
    guard let entries = mapping(root, "", example: "sections such as 'cap: 30s'") else { return config }
    checkKeys(entries, allowed: ConfigParser.sections, "")
    func section(_ key: String) -> Node? {
      guard let node = entries.first(where: { $0.key == key })?.value, !isNull(node) else { return nil }
      return node
    }
    var engine = config.engine
    if let node = section("cap"), let cap = duration(node, "cap") {
      if cap.ms > EngineConfiguration.maximumCapMs {
        error(node, "cap", "cap \(cap.text) is above the 30 s maximum")
      } else if cap.ms == 0 {
        error(node, "cap", "cap \(cap.text) would never ring; use 1s to 30s")
      } else {
        engine.capMs = cap.ms
      }
    }
    if let node = section("tombstone"), let tombstone = duration(node, "tombstone") {
      if tombstone.ms > 3_600_000 {
        error(node, "tombstone", "tombstone \(tombstone.text) is above the 1 h maximum")
      } else {
        engine.tombstoneMs = tombstone.ms
      }
    }
    var boardNames: [String]? = engine.boards.map(\.name)
    if let node = section("boards") {
      if let boards = boards(node) {
        engine.boards = boards
        boardNames = boards.map(\.name)
      } else {
        boardNames = nil  // broken: do not report rules' board names against a list we could not read
      }
    }
    if let node = section("patterns") {
      patterns(node, into: &engine, patternsFile: &config.patternsFile, boardNames: boardNames)
    }
    if let node = section("do_not_disturb") { engine.doNotDisturb = doNotDisturb(node) }
    if let node = section("region"), let region = region(node) { engine.defaultRegion = region }
    if let node = section("missed_indicator"), let indicator = missedIndicator(node) {
      engine.missedIndicator = indicator
    }
    if let node = section("socket") { socket(node, into: &config) }
    if let node = section("history"), let fields = mapping(node, "history", example: "'path: ~/callalert.sqlite'") {
      checkKeys(fields, allowed: ["path", "keep_days"], "history")
      if let path = fields.value("path").flatMap({ self.path($0, "history.path") }) { config.historyPath = path }
      if let days = fields.value("keep_days").flatMap({
        integer($0, "history.keep_days", in: DaemonConfiguration.historyKeepDaysRange)
      }) {
        config.historyKeepDays = days
      }
    }
    if let node = section("events"), let fields = mapping(node, "events", example: "'format: text'") {
      checkKeys(fields, allowed: ["format"], "events")
      if let format = fields.value("format").flatMap({
        choice($0, "events.format", EventsFormat.allCases.map { ($0.rawValue, $0) })
      }) {
        config.eventsFormat = format
      }
    }
    if let node = section("push_rules"), let rules = pushRules(node) { config.pushRules = rules }
    if let node = section("sources"), let sources = sources(node, region: engine.defaultRegion, boardNames: boardNames)
    {
      config.sources = sources
    }
    if let node = section("http") { config.http = http(node) }
    if let node = section("mqtt") { config.mqtt = mqtt(node) }
    if let node = section("sip"),
      let accounts = sip(
        node, region: engine.defaultRegion, boardNames: boardNames, sourceNames: config.sources.map(\.name))
    {
      config.sipAccounts = accounts
    }
    // A bare `kdeconnect:` turns it on with every default.
    if let node = entries.first(where: { $0.key == "kdeconnect" })?.value {
      config.kdeConnect = kdeConnect(node, historyPath: config.historyPath)
    }
    normaliseCallers(into: &engine)
    config.engine = engine
    config.patternNameUses = patternNameUses
    return config
  }

  // MARK: - Sections

  private mutating func boards(_ node: Node) -> [AlertBoard]? {
    guard let items = sequence(node, "boards", example: "a list of boards such as '- name: desk'") else { return nil }
    guard !items.isEmpty else {
      error(
        node, "boards", "the list is empty; list at least one board, or remove 'boards:' for one found automatically")
      return nil
    }
    var boards: [AlertBoard] = []
    var seen: [String: (index: Int, line: Int)] = [:]
    var valid = true
    for (index, item) in items.enumerated() {
      let path = "boards[\(index)]"
      guard let fields = mapping(item, path, example: "'name: desk' and 'port: auto'") else {
        valid = false
        continue
      }
      checkKeys(
        fields,
        allowed: [
          "name", "kind", "port", "serial", "vibrate_only", "color", "ringtone", "volume", "indicator_color",
          "patterns", "timeline",
        ],
        path)
      guard let nameNode = fields.value("name") else {
        error(item, path, "a board needs 'name:' (used in rules, events and status)")
        valid = false
        continue
      }
      guard let name = nonEmptyText(nameNode, "\(path).name") else {
        valid = false
        continue
      }
      if let first = seen[name] {
        error(
          nameNode, "\(path).name",
          "board name '\(DisplayText.excerpt(name))' is already used by boards[\(first.index)] (line \(first.line)); names must be unique"
        )
        valid = false
      } else {
        seen[name] = (index, nameNode.mark?.line ?? 1)
      }
      var board = AlertBoard(name: name)
      if let portNode = fields.value("port"), let port = nonEmptyText(portNode, "\(path).port") {
        if port == "auto" || port.hasPrefix("/") {
          board.port = port
        } else {
          error(
            portNode, "\(path).port",
            "'\(DisplayText.excerpt(port))' is not a device path; write a path such as /dev/ttyACM0, or auto")
          valid = false
        }
      }
      if let serialNode = fields.value("serial") {
        board.serialNumber = nonEmptyText(serialNode, "\(path).serial")
        if board.serialNumber == nil { valid = false }
      }
      if let vibrateNode = fields.value("vibrate_only") {
        if let vibrate = bool(vibrateNode, "\(path).vibrate_only") {
          board.vibrateOnly = vibrate
        } else {
          valid = false
        }
      }
      if !lightFields(fields, path, into: &board) { valid = false }
      if board.port == nil && board.serialNumber == nil && fields.value("port") == nil { board.port = "auto" }
      boards.append(board)
    }
    return valid ? boards : nil
  }

  private mutating func patterns(
    _ node: Node, into engine: inout EngineConfiguration, patternsFile: inout String?, boardNames: [String]?
  ) {
    guard let fields = mapping(node, "patterns", example: "'default: ring' and 'rules:'") else { return }
    checkKeys(fields, allowed: ["file", "default", "rules"], "patterns")
    if let fileNode = fields.value("file") { patternsFile = path(fileNode, "patterns.file") ?? patternsFile }
    if let defaultNode = fields.value("default"), let reference = patternReference(defaultNode, "patterns.default") {
      engine.defaultPattern = reference
    }
    guard let rulesNode = fields.value("rules") else { return }
    guard let items = sequence(rulesNode, "patterns.rules", example: "a list of rules such as '- levels: [critical]'")
    else { return }
    var rules: [PatternRule] = []
    for (index, item) in items.enumerated() {
      let path = "patterns.rules[\(index)]"
      guard let ruleFields = mapping(item, path, example: "'callers:', 'levels:', 'pattern:', 'boards:'") else {
        continue
      }
      checkKeys(ruleFields, allowed: ["callers", "levels", "pattern", "boards", "buzzer_only"], path)
      var rule = PatternRule()
      if let callersNode = ruleFields.value("callers") {
        let callers = stringList(callersNode, "\(path).callers", example: "[\"+4930123456\"]") ?? []
        rule.callers = callers.map(\.text)
        callerEntries.append(
          (
            .patternRule(rules.count),
            callers.enumerated().map { CallerEntry(text: $1.text, node: $1.node, field: "\(path).callers[\($0)]") }
          ))
      }
      if let levelsNode = ruleFields.value("levels"),
        let levels = stringList(levelsNode, "\(path).levels", example: "[critical, time-sensitive]")
      {
        for (offset, level) in levels.enumerated() {
          if let value = choice(level.node, "\(path).levels[\(offset)]", ConfigParser.levels) {
            rule.levels.append(value)
          }
        }
      }
      if let patternNode = ruleFields.value("pattern") {
        rule.pattern = patternReference(patternNode, "\(path).pattern")
      }
      if let boardsNode = ruleFields.value("boards"),
        let names = stringList(boardsNode, "\(path).boards", example: "[desk, bed]")
      {
        for (offset, name) in names.enumerated() {
          if let boardNames, !boardNames.contains(name.text) {
            error(
              name.node, "\(path).boards[\(offset)]",
              "unknown board '\(DisplayText.excerpt(name.text))'\(Suggestion.hint(for: name.text, in: boardNames)); boards are "
                + boardNames.joined(separator: ", "))
          }
          rule.boards.append(name.text)
        }
      }
      if let buzzerNode = ruleFields.value("buzzer_only") {
        rule.buzzerOnly = bool(buzzerNode, "\(path).buzzer_only")
      }
      if ruleFields.value("pattern") == nil && ruleFields.value("boards") == nil
        && ruleFields.value("buzzer_only") == nil
      {
        error(
          item, path, "a rule needs 'pattern:', 'boards:' or 'buzzer_only:' (or several); this one would change nothing"
        )
      }
      rules.append(rule)
    }
    engine.patternRules = rules
  }

  /// The interruption levels by name.
  static let levels = InterruptionLevel.allCases.map { ($0.rawValue, $0) }

  /// A region whose calling code ``PhoneNumber`` knows, as ISO 3166 alpha-2 (`UK` is taken as `GB`): any other
  /// would leave every national number unreadable, and every rule on one silently unmatched.
  private mutating func region(_ node: Node) -> String? {
    guard let text = nonEmptyText(node, "region") else { return nil }
    let code = PhoneNumber.canonicalRegion(text)
    guard PhoneNumber.callingCode(forRegion: code) != nil else {
      error(
        node, "region",
        "'\(DisplayText.excerpt(text))' is not a region whose calling code CallAlert knows; use a two-letter "
          + "ISO 3166 code such as DE, GB (or UK) or US (the list is in docs/CONFIG.md)")
      return nil
    }
    return code
  }

  /// Reads the caller numbers of rules and allowed callers into E.164 with the file's region, once every
  /// section is read (the region may come after them); one that cannot be read is an error at its place.
  mutating func normaliseCallers(into engine: inout EngineConfiguration) {
    for (target, entries) in callerEntries {
      var numbers: [String] = []
      for entry in entries {
        guard let e164 = PhoneNumber.e164(entry.text, defaultRegion: engine.defaultRegion) else {
          error(
            entry.node, entry.field,
            "'\(DisplayText.excerpt(entry.text))' is not a phone number CallAlert can read (region "
              + "\(engine.defaultRegion)); write it with its country code, e.g. +49 30 1234567")
          continue
        }
        numbers.append(e164)
      }
      switch target {
      case .allowedCallers: engine.doNotDisturb.allowedCallers = numbers
      case .patternRule(let index) where engine.patternRules.indices.contains(index):
        engine.patternRules[index].callers = numbers
      case .patternRule: continue
      }
    }
  }

  private mutating func missedIndicator(_ node: Node) -> IndicatorSetting? {
    if let scalar = node.scalar, scalar.string == "off" { return IndicatorSetting(led: 0, mode: .off) }
    guard let fields = mapping(node, "missed_indicator", example: "'blink: 150ms/1850ms', or off") else { return nil }
    checkKeys(fields, allowed: ["mode", "led", "blink"], "missed_indicator")
    var setting = EngineConfiguration().missedIndicator
    if let modeNode = fields.value("mode"),
      let mode = choice(
        modeNode, "missed_indicator.mode", [("blink", IndicatorMode.blink), ("on", .on), ("off", .off)])
    {
      setting.mode = mode
    }
    if let ledNode = fields.value("led"), let led = integer(ledNode, "missed_indicator.led", in: 0...7) {
      setting.led = UInt8(led)
    }
    if let blinkNode = fields.value("blink"), let text = nonEmptyText(blinkNode, "missed_indicator.blink") {
      let parts = text.split(separator: "/", omittingEmptySubsequences: false).map {
        Durations.milliseconds(String($0))
      }
      guard parts.count == 2, let on = parts[0], let off = parts[1], (1...65_535).contains(on),
        (1...65_535).contains(off)
      else {
        error(
          blinkNode, "missed_indicator.blink",
          "'\(DisplayText.excerpt(text))' is not on/off times; write e.g. 150ms/1850ms (each 1ms to 65s)")
        return nil
      }
      setting.onMs = UInt16(on)
      setting.offMs = UInt16(off)
    }
    return setting
  }

  private mutating func socket(_ node: Node, into config: inout DaemonConfiguration) {
    guard let fields = mapping(node, "socket", example: "'path:' and 'mode: \"0600\"'") else { return }
    checkKeys(fields, allowed: ["path", "mode", "group", "allow_others"], "socket")
    if let pathNode = fields.value("path"), let path = path(pathNode, "socket.path") { config.socketPath = path }
    if let groupNode = fields.value("group") { config.socketGroup = socketGroup(groupNode) }
    let allowOthers = fields.value("allow_others").flatMap { bool($0, "socket.allow_others") } ?? false
    guard let modeNode = fields.value("mode"), let text = nonEmptyText(modeNode, "socket.mode") else { return }
    var digits = Substring(text)
    if digits.hasPrefix("0o") { digits = digits.dropFirst(2) }
    guard !digits.isEmpty, digits.count <= 4, let mode = UInt16(digits, radix: 8), mode <= 0o777 else {
      error(
        modeNode, "socket.mode",
        "'\(DisplayText.excerpt(text))' is not octal permission bits; write e.g. \"0600\" (quoted)")
      return
    }
    guard mode & 0o600 == 0o600 else {
      error(
        modeNode, "socket.mode",
        "mode \(text) would lock the daemon's own user out; keep the owner's 6, e.g. \"0600\" or \"0660\"")
      return
    }
    // Anyone who may connect may ring the boards and read callers' names and numbers: never by accident. A
    // `socket.group` says the group's bits are meant; anything for all other users needs `allow_others`.
    let meant: UInt16 = allowOthers ? 0o077 : (fields.value("group") != nil ? 0o070 : 0)
    guard mode & 0o077 & ~meant == 0 else {
      error(
        modeNode, "socket.mode",
        "mode \(text) lets other users connect (ring the boards, read callers' names and numbers); "
          + "add 'allow_others: true' (or, for a group, 'group:') under socket: if that is meant, or use \"0600\"")
      return
    }
    config.socketMode = mode
  }
}
