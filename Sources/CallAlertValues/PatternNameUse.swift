import CallAlertText

/// A pattern name a config file uses, with its place, so that a name no pattern defines is reported where
/// it was written.
public struct PatternNameUse: Equatable, Sendable {
  /// The name as written.
  public var name: String
  /// `file:line:column` of the value.
  public var location: String
  /// The field path, e.g. `patterns.rules[1].pattern`.
  public var field: String

  /// Creates a use.
  public init(name: String, location: String, field: String) {
    self.name = name
    self.location = location
    self.field = field
  }
}

extension DaemonConfiguration {
  /// An error for every pattern name the file uses that `known` lacks (compared without regard to case, as
  /// the daemon resolves names), each with its place and the closest known name.
  ///
  /// `known` is what the daemon can play by name: the config's pattern file and the built-in patterns.
  public func unknownPatternNames(known: [String], from source: String) -> [InputError] {
    let lowered = Set(known.map { $0.lowercased() })
    return patternNameUses.filter { !lowered.contains($0.name.lowercased()) }.map { use in
      InputError(
        location: use.location, field: use.field,
        message: "unknown pattern '\(use.name)'\(Suggestion.hint(for: use.name, in: known)); patterns are named in "
          + "\(source); or give a slot number")
    }
  }
}
