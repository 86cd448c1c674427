/// One thing `callalert doctor` checked: what it found and, when something is wrong, how to fix it.
public struct DoctorFinding: Codable, Equatable, Sendable {
  /// How a check came out.
  public enum Status: String, Codable, Sendable {
    /// Fine.
    case ok
    /// Works, but something will bite later (ModemManager probing, a world-writable socket).
    case warning
    /// Broken: the daemon cannot do its job until it is fixed.
    case error
    /// Not checked: it does not apply, or what it needs failed first.
    case skipped
  }

  /// What was checked: `config`, `daemon`, `socket`, `history`, `udev-rule`, `modemmanager`, or
  /// `board <name>: found` / `access` / `firmware` / `table`, `sources` (none configured), or
  /// `source <name>` / `source <name>: secret`.
  public var check: String
  /// How it came out.
  public var status: Status
  /// What was found, naming the file, the path or the value.
  public var summary: String
  /// What to do about it (the exact command where there is one); nil when nothing is to be done.
  public var fix: String?

  /// A finding.
  public init(_ check: String, _ status: Status, _ summary: String, fix: String? = nil) {
    self.check = check
    self.status = status
    self.summary = summary
    self.fix = fix
  }
}

/// Everything `callalert doctor` found, in the order checked.
public struct DoctorReport: Codable, Equatable, Sendable {
  /// The findings.
  public var findings: [DoctorFinding]
  /// The callalert version that checked.
  public var version: String

  /// A report.
  public init(findings: [DoctorFinding], version: String) {
    self.findings = findings
    self.version = version
  }

  /// Whether no check found an error (warnings allowed): the exit status is 0 exactly then.
  public var isHealthy: Bool { !findings.contains { $0.status == .error } }

  /// The finding of `check`, if it was made.
  public func finding(_ check: String) -> DoctorFinding? { findings.first { $0.check == check } }

  /// One line per finding, and its fix indented below it.
  public var text: String {
    var lines: [String] = []
    for finding in findings {
      let mark =
        switch finding.status {
        case .ok: "ok     "
        case .warning: "WARN   "
        case .error: "ERROR  "
        case .skipped: "skip   "
        }
      lines.append("\(mark)\(finding.check): \(finding.summary)")
      if let fix = finding.fix { lines.append("       fix: \(fix)") }
    }
    let errors = findings.filter { $0.status == .error }.count
    let warnings = findings.filter { $0.status == .warning }.count
    lines.append(
      errors == 0 && warnings == 0
        ? "all good" : "\(errors) error(s), \(warnings) warning(s)")
    return lines.joined(separator: "\n")
  }

  enum CodingKeys: String, CodingKey { case findings = "checks", version, healthy }

  /// Encodes `checks`, `version` and `healthy`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(findings, forKey: .findings)
    try container.encode(version, forKey: .version)
    try container.encode(isHealthy, forKey: .healthy)
  }

  /// Decodes `checks` and `version` (`healthy` is derived).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    findings = try container.decode([DoctorFinding].self, forKey: .findings)
    version = try container.decode(String.self, forKey: .version)
  }
}
