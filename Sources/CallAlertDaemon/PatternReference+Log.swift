import CallAlertEngine

extension PatternReference {
  /// `pattern office`, `slot 3`, `an inline pattern`, for the log.
  var logDescription: String {
    switch self {
    case .slot(let slot): "slot \(slot)"
    case .named(let name): "pattern \(name)"
    case .inline: "an inline pattern"
    }
  }
}
