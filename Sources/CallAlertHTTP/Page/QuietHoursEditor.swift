import CallAlertEngine
import CallAlertText

/// What the page's quiet-hours editor acts through: the daemon's `do_not_disturb:` section as text, checked
/// with the config file's own errors, saved where it stands in for the config file's, and applied at once.
/// The daemon hands it in (CallAlertHTTPDaemon), so the API never touches files or reloads itself.
public struct QuietHoursEditor: Sendable {
  /// How a save or a reset went.
  public enum Outcome: Sendable, Equatable {
    /// Saved (or removed) and in force.
    case applied
    /// Saved (or removed), but not in force yet: the config file itself does not load now (its errors), so
    /// the running settings stay until a reload or start that reads it.
    case savedNotApplied(String)
    /// Refused: the text's errors, at their `line:column`; nothing was saved.
    case refused([InputError])
  }

  /// The name the text has in errors: `quiet-hours:3:11: do_not_disturb.quiet_hours[0].from: ...`.
  public static let textName = "quiet-hours"

  /// Where the page's section is kept; nil when nowhere (not offered).
  public var file: @Sendable () -> String
  /// Whether the section in force is the page's rather than the config file's.
  public var isInForce: @Sendable () -> Bool
  /// The errors of a section's text, as the config file's would be; empty when it is good.
  public var check: @Sendable (String) -> [InputError]
  /// Saves a section's text and applies it.
  public var save: @Sendable (String) async -> Outcome
  /// Removes the page's section and applies the config file's.
  public var reset: @Sendable () async -> Outcome

  /// Creates an editor.
  public init(
    file: @escaping @Sendable () -> String, isInForce: @escaping @Sendable () -> Bool,
    check: @escaping @Sendable (String) -> [InputError], save: @escaping @Sendable (String) async -> Outcome,
    reset: @escaping @Sendable () async -> Outcome
  ) {
    self.file = file
    self.isInForce = isInForce
    self.check = check
    self.save = save
    self.reset = reset
  }
}
