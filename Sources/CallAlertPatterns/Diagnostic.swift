/// One finding about a pattern file: an error that stops it compiling, or a warning worth reading.
///
/// Every diagnostic names the place to change, as `file:line:column`, and its message says what to change.
public struct Diagnostic: Equatable, Hashable, Sendable, CustomStringConvertible {
  /// How serious a diagnostic is.
  public enum Severity: String, Equatable, Hashable, Sendable, Comparable {
    /// The file cannot be compiled, or the board would refuse or mangle the table.
    case error
    /// The table compiles and the board accepts it, but it will not behave as it reads.
    case warning

    /// Errors sort before warnings.
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .error && rhs == .warning }
  }

  /// How serious it is.
  public var severity: Severity
  /// Where to look.
  public var location: SourceLocation
  /// What is wrong and what to change, without the location or severity.
  public var message: String

  /// Creates a diagnostic.
  public init(_ severity: Severity, at location: SourceLocation, _ message: String) {
    self.severity = severity
    self.location = location
    self.message = message
  }

  /// Creates an error.
  public static func error(at location: SourceLocation, _ message: String) -> Diagnostic {
    Diagnostic(.error, at: location, message)
  }

  /// Creates a warning.
  public static func warning(at location: SourceLocation, _ message: String) -> Diagnostic {
    Diagnostic(.warning, at: location, message)
  }

  /// Whether this is an error.
  public var isError: Bool { severity == .error }

  /// `file:line:column: error: message`, the form compilers use, which editors and terminals turn into links.
  public var description: String { "\(location): \(severity.rawValue): \(message)" }

  /// Orders diagnostics by file position, then errors before warnings, then by text: a stable order for
  /// output and tests.
  static func inOrder(_ lhs: Diagnostic, _ rhs: Diagnostic) -> Bool {
    if lhs.location.file != rhs.location.file { return lhs.location.file < rhs.location.file }
    if lhs.location.line != rhs.location.line { return lhs.location.line < rhs.location.line }
    if lhs.location.column != rhs.location.column { return lhs.location.column < rhs.location.column }
    if lhs.severity != rhs.severity { return lhs.severity < rhs.severity }
    return lhs.message < rhs.message
  }
}

extension [Diagnostic] {
  /// Whether any of these is an error.
  public var containsErrors: Bool { contains { $0.isError } }

  /// The errors, in order.
  public var errors: [Diagnostic] { filter { $0.isError } }

  /// The warnings, in order.
  public var warnings: [Diagnostic] { filter { !$0.isError } }

  /// Sorted by position and without repeats (a generated pattern can trip the same check once per step).
  func normalized() -> [Diagnostic] {
    var seen: Set<Diagnostic> = []
    return filter { seen.insert($0).inserted }.sorted(by: Diagnostic.inOrder)
  }
}

/// What ``PatternFile/parse(text:file:)`` and ``PatternFile/build(text:file:against:)`` throw: every error
/// found (not just the first), with the warnings found along the way.
public struct PatternDiagnostics: Error, Equatable, Sendable, CustomStringConvertible {
  /// All diagnostics, errors and warnings, sorted by position.
  public var diagnostics: [Diagnostic]

  /// Creates the error from diagnostics (sorted and deduplicated here).
  public init(_ diagnostics: [Diagnostic]) {
    self.diagnostics = diagnostics.normalized()
  }

  /// The errors.
  public var errors: [Diagnostic] { diagnostics.errors }

  /// The warnings.
  public var warnings: [Diagnostic] { diagnostics.warnings }

  /// One diagnostic per line, then a count: "2 errors, 1 warning".
  public var description: String {
    let lines = diagnostics.map(\.description)
    return (lines + [PatternDiagnostics.summary(errors: errors.count, warnings: warnings.count)])
      .joined(separator: "\n")
  }

  /// "1 error, 2 warnings".
  public static func summary(errors: Int, warnings: Int) -> String {
    "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
  }
}
