/// A call as a phone system announces it, before any mapping to the engine: what a bridge's tracker reports.
///
/// The parsers and trackers speak only this; ``BridgeRouter`` is the one place that turns it into the engine's
/// inputs, so a change in how the host feeds the engine moves that mapping and nothing else.
public enum BridgeNotification: Equatable, Sendable {
  /// A call started ringing.
  case ringing(RingingCall)
  /// The call was answered (on any phone the phone system rang).
  case answered(callID: String)
  /// The call ended.
  case ended(callID: String, outcome: BridgeCallOutcome)
}

/// An incoming call that rings, with what the filters of a source match on.
public struct RingingCall: Equatable, Sendable {
  /// The call's id, unique within the source (the source's name is added when it reaches the engine).
  public var id: String
  /// The caller's number as the phone system gave it; nil when withheld.
  public var callerNumber: String?
  /// The caller's name, when the phone system knows one.
  public var callerName: String?
  /// The number that was called (a FRITZ!Box's own MSN, the dialled extension on Asterisk).
  public var calledNumber: String?
  /// The line it came in on (FRITZ!Box: `SIP0`, `POTS`, `ISDN`...).
  public var line: String?
  /// The extension or endpoint that rings (Asterisk: `PJSIP/201`, or the hint's `201@ext-local`).
  public var `extension`: String?

  /// Creates a call.
  public init(
    id: String, callerNumber: String? = nil, callerName: String? = nil, calledNumber: String? = nil,
    line: String? = nil, extension: String? = nil
  ) {
    self.id = id
    self.callerNumber = callerNumber
    self.callerName = callerName
    self.calledNumber = calledNumber
    self.line = line
    self.extension = `extension`
  }
}

/// How a bridged call ended.
public enum BridgeCallOutcome: String, Equatable, Sendable {
  /// It was never answered: the caller gave up, or every phone declined (a missed call).
  case missed
  /// It was answered and then ended.
  case completed
}
