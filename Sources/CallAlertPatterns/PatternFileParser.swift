import CallAlertProtocol
import CallAlertText
internal import Yams

/// Reads a pattern file (YAML) into a ``PatternFile``, collecting every error instead of stopping at the
/// first, so one run shows everything to fix.
///
/// The structure is walked with Yams' node API (`compose`), not decoded with `Codable`, because nodes
/// keep their marks: every message can then name the line and column of the value to change.
struct PatternFileParser {
  let source: SourceText
  let text: String
  var diagnostics: [Diagnostic] = []
  /// The patterns that built, even when others did not, so `check` can validate them too.
  private(set) var definitions: [PatternDefinition] = []

  /// The keys a file may have at the top.
  static let topKeys = ["version", "slots", "patterns"]
  /// The keys that say what a pattern is built from; each pattern has exactly one.
  static let kindKeys = ["steps", "cadence", "rtttl", "vibration"]
  /// The keys of an explicit step.
  static let stepKeys = ["ms", "hz", "volume", "motor", "led", "leds"]

  init(text: String, file: String) {
    // An oversized file is refused before anything reads it (see `parse()`), so its lines are not indexed.
    let fits = text.utf8.count <= PatternFile.maximumBytes
    self.text = fits ? text : ""
    source = SourceText(file: file, text: fits ? text : "")
    if !fits {
      oversizedBytes = text.utf8.count
    }
  }

  /// The size of a text over ``PatternFile/maximumBytes``; nil when it fits.
  private var oversizedBytes: Int? = nil

  /// A pattern as declared, before its body is read.
  private struct Declaration {
    var name: String
    var nameNode: Node
    var entries: [MappingEntry]
    var isListItem: Bool
    var slot: Int? = nil
    var slotLocation: SourceLocation? = nil
  }

  /// Parses the file; nil when the structure is too broken to go on (the diagnostics say why).
  mutating func parse() -> PatternFile? {
    if let oversizedBytes {
      diagnostics.append(
        .error(
          at: source.location(line: 1, column: 1),
          "the file is \(oversizedBytes) bytes, above the 1 MiB (\(PatternFile.maximumBytes) bytes) limit for a "
            + "pattern file; it was not read"))
      return nil
    }
    let root: Node?
    do {
      // `.basic`: the parser reads every scalar as text itself, so Yams' implicit typing (a regular expression
      // per rule per scalar, run even for duplicate-key checks) would be pure cost. The encoding is named: left
      // to its default, Yams reads the whole process environment on every parse (its YAMS_DEFAULT_ENCODING).
      root = try Yams.compose(yaml: text, .basic, .default, .utf8)
    } catch {
      diagnostics.append(source.diagnostic(for: error, text: text))
      return nil
    }
    let start = source.location(line: 1, column: 1)
    guard let root, !isNull(root) else {
      diagnostics.append(.error(at: start, "the file is empty; it needs 'version:' and 'patterns:'"))
      return nil
    }
    guard let entries = mapping(root, "the file", "", example: "'version:' and 'patterns:'") else { return nil }
    checkKeys(entries, allowed: PatternFileParser.topKeys, "")
    var version: UInt32? = nil
    if let node = entries.first(where: { $0.key == "version" })?.value {
      version = integer(node, "version", in: 0...Int(UInt32.max), "", hint: "a table version 0-4294967295")
        .map(UInt32.init)
    } else {
      diagnostics.append(
        .error(
          at: source.location(of: root),
          "the file has no 'version:'; add e.g. 'version: 1' (the table version the board reports)"))
    }
    var slotCount: Int? = nil
    if let node = entries.first(where: { $0.key == "slots" })?.value {
      slotCount = integer(node, "slots", in: 1...PatternTable.maxSlots, "", hint: "1-\(PatternTable.maxSlots)")
    }
    guard let patternsEntry = entries.first(where: { $0.key == "patterns" }) else {
      diagnostics.append(
        .error(
          at: source.location(of: root),
          "the file has no 'patterns:'; add a list of patterns, each with 'name:' and e.g. 'cadence: US'"))
      return nil
    }
    var declarations = declarations(in: patternsEntry.value)
    // An empty table (all slots empty) is only meant when 'slots:' says how many.
    if declarations.isEmpty && slotCount == nil && !diagnostics.containsErrors {
      error(patternsEntry.value, "'patterns:' is empty; add a pattern, or 'slots:' for a table of empty slots")
      return nil
    }
    assignSlots(&declarations)
    let highest = declarations.compactMap(\.slot).max() ?? 0
    if let slotCount, slotCount <= highest, let node = entries.first(where: { $0.key == "slots" })?.value {
      error(node, "slots \(slotCount) leaves out slot \(highest); use at least \(highest + 1) or remove 'slots:'")
    }
    checkNames(declarations)
    var patterns: [PatternDefinition] = []
    for declaration in declarations {
      guard let slot = declaration.slot, let definition = definition(declaration, slot: slot) else { continue }
      patterns.append(definition)
    }
    definitions = patterns
    guard let version, !diagnostics.containsErrors else { return nil }
    return PatternFile(
      path: source.file, version: version, slotCount: max(slotCount ?? 0, highest + 1),
      patterns: patterns.sorted { $0.slot < $1.slot }, warnings: diagnostics.normalized(),
      location: source.location(of: patternsEntry.keyNode))
  }

  /// The declarations of `patterns:`, a list of mappings with `name:` or a mapping from names to patterns.
  private mutating func declarations(in node: Node) -> [Declaration] {
    var result: [Declaration] = []
    if let sequence = node.sequence {
      for (index, item) in sequence.enumerated() {
        guard let entries = mapping(item, "pattern \(index)", "", example: "keys such as 'name: office'") else {
          continue
        }
        guard let nameEntry = entries.first(where: { $0.key == "name" }) else {
          error(item, "pattern \(index) has no 'name:'; add e.g. 'name: office' (at most 16 ASCII characters)")
          continue
        }
        guard let name = text(nameEntry.value, "name", "pattern \(index): ") else { continue }
        result.append(
          Declaration(name: name, nameNode: nameEntry.value, entries: entries, isListItem: true))
      }
    } else if let mapping = node.mapping {
      for (key, value) in mapping {
        guard let name = text(key, "a pattern's name", "") else { continue }
        let prefix = "pattern '\(name)': "
        guard let entries = self.mapping(value, "the pattern", prefix, example: "keys such as 'cadence: US'") else {
          continue
        }
        if let nameEntry = entries.first(where: { $0.key == "name" }) {
          error(nameEntry.keyNode, "\(prefix)the name is the key above; remove 'name:' or use a list of patterns")
        }
        result.append(Declaration(name: name, nameNode: key, entries: entries, isListItem: false))
      }
    } else {
      error(node, "'patterns:' must be a list of patterns (each with name:) or a mapping from names to patterns")
    }
    return result
  }

  /// Reads explicit `slot:`s, refuses duplicates, then gives the others the lowest free slots in file order.
  private mutating func assignSlots(_ declarations: inout [Declaration]) {
    var taken: [Int: String] = [:]
    for index in declarations.indices {
      let declaration = declarations[index]
      guard let node = declaration.entries.first(where: { $0.key == "slot" })?.value else { continue }
      let prefix = "pattern '\(declaration.name)': "
      guard let slot = integer(node, "slot", in: 0...(PatternTable.maxSlots - 1), prefix) else {
        declarations[index].slot = -1  // marks "has an explicit but broken slot"; skipped below
        continue
      }
      if let owner = taken[slot] {
        error(
          node,
          "\(prefix)slot \(slot) is already taken by '\(owner)'; "
            + "choose another or remove 'slot:' to take the next free one"
        )
        declarations[index].slot = -1
        continue
      }
      taken[slot] = declaration.name
      declarations[index].slot = slot
      declarations[index].slotLocation = source.location(of: node)
    }
    var next = 0
    for index in declarations.indices where declarations[index].slot == nil {
      while taken[next] != nil { next += 1 }
      guard next < PatternTable.maxSlots else {
        error(
          declarations[index].nameNode,
          "pattern '\(declarations[index].name)' does not fit: all \(PatternTable.maxSlots) slots are taken")
        continue
      }
      taken[next] = declarations[index].name
      declarations[index].slot = next
    }
    for index in declarations.indices where declarations[index].slot == -1 { declarations[index].slot = nil }
  }

  /// Names are stored in 16 ASCII bytes; duplicates and empty names still compile but cannot be told apart.
  private mutating func checkNames(_ declarations: [Declaration]) {
    var seen: [String: SourceLocation] = [:]
    for declaration in declarations {
      let name = declaration.name
      if let bad = name.unicodeScalars.first(where: { $0.value < 0x20 || $0.value > 0x7E }) {
        error(
          declaration.nameNode,
          "pattern name '\(name)' contains '\(bad)'; names are printable ASCII (the table stores bytes)")
      } else if name.utf8.count > PatternTable.nameSize {
        error(
          declaration.nameNode,
          "pattern name '\(name)' is \(name.utf8.count) characters; the table stores at most \(PatternTable.nameSize)")
      }
      if name.isEmpty {
        warning(declaration.nameNode, "a pattern has an empty name; it can only be chosen by slot")
      } else if let first = seen[name] {
        warning(
          declaration.nameNode,
          "pattern name '\(name)' is also used at line \(first.line); lookups by name find the first")
      } else {
        seen[name] = source.location(of: declaration.nameNode)
      }
    }
  }

  /// Builds one pattern from its body.
  private mutating func definition(_ declaration: Declaration, slot: Int) -> PatternDefinition? {
    let prefix = "pattern '\(declaration.name)': "
    let kinds = declaration.entries.filter { PatternFileParser.kindKeys.contains($0.key) }
    guard let kind = kinds.first else {
      // A misspelt source (`cadance:`) is named at its key, with the word it was probably meant to be.
      let misspelt = declaration.entries.lazy.compactMap { entry in
        Suggestion.closest(to: entry.key, in: PatternFileParser.kindKeys).map { (entry, $0) }
      }.first
      if let (entry, meant) = misspelt {
        error(
          entry.keyNode,
          "\(prefix)unknown key '\(entry.key)' (did you mean '\(meant)'?); say what it plays with one of "
            + "'steps:', 'cadence:', 'rtttl:' or 'vibration:'")
      } else {
        error(
          declaration.nameNode,
          "\(prefix)say what it plays with one of 'steps:', 'cadence:', 'rtttl:' or 'vibration:'")
      }
      return nil
    }
    for extra in kinds.dropFirst() {
      error(extra.keyNode, "\(prefix)'\(extra.key):' cannot be combined with '\(kind.key):'; a pattern has one source")
    }
    if let led = declaration.entries.first(where: { $0.key == "led" }),
      declaration.entries.contains(where: { $0.key == "leds" })
    {
      error(led.keyNode, "\(prefix)give either 'led:' or 'leds:', not both")
    }
    // Extra sources were reported above; do not report them again as unknown keys.
    var common = ["slot"] + kinds.dropFirst().map(\.key)
    if declaration.isListItem { common.append("name") }
    let built: (pattern: Pattern, origins: [StepOrigin], source: PatternDefinition.Source)?
    switch kind.key {
    case "steps": built = steps(declaration.entries, kind.value, prefix, common: common)
    case "cadence": built = cadence(declaration.entries, kind.value, prefix, common: common)
    case "rtttl": built = rtttl(declaration.entries, kind.value, prefix, common: common)
    default: built = vibration(declaration.entries, kind.value, prefix, common: common)
    }
    guard let built else { return nil }
    let location = source.location(of: declaration.nameNode)
    return PatternDefinition(
      name: declaration.name, slot: slot, pattern: built.pattern, source: built.source, location: location,
      slotLocation: declaration.slotLocation ?? location, origins: built.origins)
  }

  /// Finishes a builder, reporting an empty pattern or loop at `node`.
  mutating func finish(
    _ builder: PatternBuilder, repeatCount: UInt8, at node: Node, _ prefix: String, loopNode: Node? = nil
  ) -> (pattern: Pattern, origins: [StepOrigin])? {
    do {
      return try builder.build(repeatCount: repeatCount)
    } catch {
      switch error {
      case .empty:
        self.error(node, "\(prefix)nothing lasts longer than 0 ms; give at least one step a duration")
      case .emptyLoop:
        self.error(loopNode ?? node, "\(prefix)the loop holds only 0 ms steps; start it at a step that lasts")
      }
      return nil
    }
  }

  /// Explicit steps: `- { ms: 400, hz: 440, volume: 80%, motor: 100%, led: on }`, with `repeat:` and
  /// `loop_from:`. Each written step becomes exactly one wire step (longer than 65 535 ms: several).
  private mutating func steps(
    _ entries: [MappingEntry], _ node: Node, _ prefix: String, common: [String]
  ) -> (Pattern, [StepOrigin], PatternDefinition.Source)? {
    checkKeys(entries, allowed: common + ["steps", "repeat", "loop_from"], prefix)
    guard let sequence = node.sequence else {
      error(node, "\(prefix)'steps:' must be a list such as '- { ms: 400, hz: 440 }'")
      return nil
    }
    guard !sequence.isEmpty else {
      error(node, "\(prefix)'steps:' is empty; add at least one step such as '- { ms: 400, hz: 440 }'")
      return nil
    }
    let repeats = entries.first { $0.key == "repeat" }.map { repeatCount($0.value, prefix) } ?? 0
    let loopNode = entries.first { $0.key == "loop_from" }?.value
    let loopFrom =
      loopNode.map {
        integer($0, "loop_from", in: 0...(sequence.count - 1), prefix, hint: "a step index 0-\(sequence.count - 1)")
      } ?? 0
    var builder = PatternBuilder(merges: false)
    var valid = repeats != nil && loopFrom != nil
    for (index, item) in sequence.enumerated() {
      if index == loopFrom { builder.markLoopStart() }
      let stepPrefix = "\(prefix)step \(index): "
      guard let fields = mapping(item, "a step", stepPrefix) else {
        valid = false
        continue
      }
      checkKeys(fields, allowed: PatternFileParser.stepKeys, stepPrefix)
      func field(_ key: String) -> Node? { fields.first { $0.key == key }?.value }
      guard let msNode = field("ms") else {
        error(item, "\(stepPrefix)has no 'ms:'; add its duration, e.g. 'ms: 400'")
        valid = false
        continue
      }
      let ms = integer(msNode, "ms", in: 0...10_000_000, stepPrefix, hint: "a duration in ms, 1-10000000")
      let hz =
        field("hz").map {
          integer($0, "hz", in: 0...Int(UInt16.max), stepPrefix, hint: "0 (silent) or a frequency in Hz")
        } ?? 0
      let volume = field("volume").map { level($0, "volume", stepPrefix) } ?? ((hz ?? 0) == 0 ? 0 : 255)
      let motor = field("motor").map { level($0, "motor", stepPrefix) } ?? 0
      let ledNode = field("led") ?? field("leds")
      let leds = ledNode.map { self.leds($0, "led", stepPrefix) } ?? 0
      guard let ms, let hz, let volume, let motor, let leds else {
        valid = false
        continue
      }
      if ms == 0 { warning(msNode, "\(stepPrefix)ms 0 lasts no time; the step is left out") }
      let origin = StepOrigin(
        .step(index: index), at: source.location(of: item), frequencyLocation: field("hz").map(source.location(of:)),
        motorLocation: field("motor").map(source.location(of:)), ledLocation: ledNode.map(source.location(of:)))
      builder.add(
        ms: ms, hz: UInt16(hz), volume: volume, motor: motor, leds: leds, origin: origin, normalizeSilence: false)
    }
    guard valid, let repeats else { return nil }
    guard let built = finish(builder, repeatCount: repeats, at: node, prefix, loopNode: loopNode) else { return nil }
    return (built.pattern, built.origins, .steps)
  }
}
