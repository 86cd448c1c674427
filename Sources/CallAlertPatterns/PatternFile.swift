import CallAlertProtocol

/// A pattern file: the patterns a person wrote (in YAML, see docs/PATTERNS.md), compiled, with their
/// slots and the table version. The entry point for every `callalert patterns` subcommand:
///
/// - `check`: ``check(text:file:against:)`` returns every diagnostic, parse and board checks together.
/// - `compile`: ``build(text:file:against:)`` parses, validates and compiles, or throws all errors.
/// - `decompile`: ``decompile(bytes:)`` turns a table back into a file.
/// - `render`: ``pattern(named:)`` or ``BuiltInPatterns/named(_:)``, then ``PatternRenderer``.
public struct PatternFile: Equatable, Sendable {
  /// The file's path as given, used in diagnostics.
  public var path: String
  /// The table version, reported by the board in INFO.
  public var version: UInt32
  /// The number of slots in the table: `slots:` or the highest slot used plus one.
  public var slotCount: Int
  /// The patterns, by slot.
  public var patterns: [PatternDefinition]
  /// Warnings found while parsing (the file compiles despite them).
  public var warnings: [Diagnostic]
  /// Where `patterns:` is, for findings about the table as a whole.
  public var location: SourceLocation

  /// The largest pattern file read, in bytes (1 MiB): far more than any table needs (a board holds a few
  /// tens of KiB), small enough that checking a file never takes much memory or time. Larger files are
  /// refused before parsing.
  public static let maximumBytes = 1 << 20

  /// Creates a file from parts (normally ``parse(text:file:)`` does this).
  public init(
    path: String, version: UInt32, slotCount: Int, patterns: [PatternDefinition], warnings: [Diagnostic] = [],
    location: SourceLocation? = nil
  ) {
    self.path = path
    self.version = version
    self.slotCount = slotCount
    self.patterns = patterns
    self.warnings = warnings
    self.location = location ?? SourceLocation(file: path, line: 1, column: 1)
  }

  /// Parses a pattern file, collecting every error before throwing; warnings are in ``warnings``.
  public static func parse(text: String, file: String) throws(PatternDiagnostics) -> PatternFile {
    var parser = PatternFileParser(text: text, file: file)
    guard let parsed = parser.parse() else { throw PatternDiagnostics(parser.diagnostics) }
    return parsed
  }

  /// Checks the file against a board: slots, steps, frequencies, LEDs, motor channels and limits, the
  /// table's size and the 30 s cap. Returns errors (the board would refuse or cut the table) and
  /// warnings, sorted by position; parse warnings are not repeated here.
  public func validate(against capabilities: Capabilities = .referenceBoard) -> [Diagnostic] {
    PatternValidator(capabilities: capabilities).validate(self).normalized()
  }

  /// The pattern table: deterministic, so the same file always gives the same bytes and CRC. It has
  /// ``slotCount`` slots, or more if a pattern (of a file assembled by hand) lies beyond them.
  public func compile() -> PatternTable {
    let count = max(slotCount, (patterns.map(\.slot).max() ?? -1) + 1)
    var slots = [PatternTable.Slot?](repeating: nil, count: count)
    for definition in patterns where definition.slot >= 0 { slots[definition.slot] = definition.tableSlot }
    return PatternTable(version: version, slots: slots)
  }

  /// The table's bytes, ending in its CRC-32C, ready for a table transfer.
  public func compileBytes() -> [UInt8] { compile().encoded() }

  /// A table as a pattern file with explicit steps; compiling the result gives the same table again.
  public static func decompile(_ table: PatternTable) -> String {
    PatternDecompiler.yaml(for: table)
  }

  /// A table's bytes as a pattern file, after checking them as a board would (CRC, layout, steps).
  public static func decompile(bytes: [UInt8]) throws(PayloadError) -> String {
    PatternDecompiler.yaml(for: try PatternTable.decode(bytes))
  }

  /// The first pattern with this name.
  public func pattern(named name: String) -> PatternDefinition? {
    patterns.first { $0.name == name }
  }

  /// The pattern in a slot.
  public func pattern(inSlot slot: Int) -> PatternDefinition? {
    patterns.first { $0.slot == slot }
  }

  /// Parse and board diagnostics together, for `patterns check`: every parse error and warning, plus the
  /// board checks of every pattern that could be built (and of the table, when the whole file parses).
  public static func check(
    text: String, file: String, against capabilities: Capabilities = .referenceBoard
  ) -> [Diagnostic] {
    var parser = PatternFileParser(text: text, file: file)
    guard let parsed = parser.parse() else {
      // Board checks for the patterns that did build, so one run shows everything to fix.
      let validator = PatternValidator(capabilities: capabilities)
      return (parser.diagnostics + parser.definitions.flatMap(validator.validate)).normalized()
    }
    return (parsed.warnings + parsed.validate(against: capabilities)).normalized()
  }

  /// Parses, validates against `capabilities` and compiles, for `patterns compile`; throws every error
  /// (with the warnings) when the file does not parse or the board would refuse the table.
  public static func build(
    text: String, file: String, against capabilities: Capabilities = .referenceBoard
  ) throws(PatternDiagnostics) -> PatternBuild {
    let parsed = try parse(text: text, file: file)
    let diagnostics = (parsed.warnings + parsed.validate(against: capabilities)).normalized()
    guard !diagnostics.containsErrors else { throw PatternDiagnostics(diagnostics) }
    let table = parsed.compile()
    return PatternBuild(file: parsed, table: table, bytes: table.encoded(), warnings: diagnostics)
  }

  /// One line per pattern, for `patterns list`: slot, name, steps, length.
  public var listing: String {
    let header = "version \(version), \(slotCount) slot\(slotCount == 1 ? "" : "s"), \(compileBytes().count) bytes"
    return ([header] + patterns.map(\.summary)).joined(separator: "\n")
  }
}

/// A compiled pattern file: the parsed file, its table and bytes, and the warnings to show.
public struct PatternBuild: Equatable, Sendable {
  /// The parsed file.
  public var file: PatternFile
  /// The compiled table.
  public var table: PatternTable
  /// The table's bytes, CRC included.
  public var bytes: [UInt8]
  /// Warnings from parsing and validation.
  public var warnings: [Diagnostic]

  /// The table's CRC-32C, as the board reports it in INFO (the last four bytes, little-endian).
  public var crc: UInt32 {
    bytes.suffix(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }
}
