/// One finding of `callalert doctor`, as the setup page shows it: the daemon's add-on runs the doctor and hands
/// its findings in (the HTTP module does not know the doctor).
public struct SetupFinding: Equatable, Sendable {
  /// What was checked: `config`, `daemon`, `udev`, `board desk`, ...
  public var check: String
  /// How it came out: `ok`, `warning`, `error`, `skipped`.
  public var status: String
  /// What was found.
  public var summary: String
  /// What to do about it, when anything is to be done.
  public var fix: String?

  /// Creates a finding.
  public init(check: String, status: String, summary: String, fix: String? = nil) {
    self.check = check
    self.status = status
    self.summary = summary
    self.fix = fix
  }
}
