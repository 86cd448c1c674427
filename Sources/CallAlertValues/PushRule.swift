import CallAlertText

/// Maps a push payload shape that the built-in presets do not know to a call or a hangup.
///
/// A rule applies when every ``match`` condition holds; rules are tried in order, before the presets, and
/// the first that applies decides. In the config file:
///
/// ```yaml
/// push_rules:
///   - match: {event: ring}
///     kind: call
///     id: data.call.id
///     caller: data.call.from
/// ```
public struct PushRule: Equatable, Sendable {
  /// What a payload that matches stands for.
  public enum Kind: String, CaseIterable, Equatable, Sendable {
    /// An incoming call.
    case call
    /// The caller hung up (or the call was cancelled).
    case hangup
  }

  /// One condition: the value at `path` equals `equals`, compared as text (`3` matches the number 3 and the
  /// string "3"; `true` matches the boolean).
  public struct Match: Equatable, Sendable {
    /// Where to look.
    public var path: JSONPath
    /// The text the value must have.
    public var equals: String

    /// Creates a condition.
    public init(path: JSONPath, equals: String) {
      self.path = path
      self.equals = equals
    }
  }

  /// The conditions, all of which must hold; at least one.
  public var match: [Match]
  /// Call or hangup.
  public var kind: Kind
  /// Where the call id is; nil, or no value there in a payload, makes a call or hangup without an id (see
  /// ``AnonymousCallTracker``).
  public var id: JSONPath?
  /// Where the caller's number is (in a hangup without an id, it says which call ends).
  public var caller: JSONPath?
  /// Where the caller's name is.
  public var name: JSONPath?
  /// Where the sent-at time is (Unix seconds or milliseconds, or ISO 8601).
  public var sentAt: JSONPath?
  /// Where the interruption level is (passive, active, time-sensitive, critical).
  public var level: JSONPath?
  /// Where a pattern name is.
  public var pattern: JSONPath?

  /// Creates a rule.
  public init(
    match: [Match], kind: Kind, id: JSONPath? = nil, caller: JSONPath? = nil, name: JSONPath? = nil,
    sentAt: JSONPath? = nil, level: JSONPath? = nil, pattern: JSONPath? = nil
  ) {
    self.match = match
    self.kind = kind
    self.id = id
    self.caller = caller
    self.name = name
    self.sentAt = sentAt
    self.level = level
    self.pattern = pattern
  }
}
