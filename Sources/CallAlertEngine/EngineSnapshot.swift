#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the engine is doing at one moment, for `callalert status`.
public struct EngineSnapshot: Equatable, Sendable {
  /// The calls that ring or wait for a board, oldest first.
  public var activeCalls: [Call]
  /// Missed calls not yet acknowledged (the indicator blinks for them), oldest first.
  public var missedCalls: [IncomingCall]
  /// Do-not-disturb and silent mode.
  public var doNotDisturb: DoNotDisturb
  /// Every configured board, in the configuration's order.
  public var boards: [Board]
  /// The next moment the engine needs `advance(to:)` (nil: nothing scheduled).
  public var nextDeadlineMs: UInt64?

  /// Creates a snapshot.
  public init(
    activeCalls: [Call], missedCalls: [IncomingCall], doNotDisturb: DoNotDisturb, boards: [Board],
    nextDeadlineMs: UInt64?
  ) {
    self.activeCalls = activeCalls
    self.missedCalls = missedCalls
    self.doNotDisturb = doNotDisturb
    self.boards = boards
    self.nextDeadlineMs = nextDeadlineMs
  }

  /// One active call.
  public struct Call: Equatable, Sendable {
    /// The call as received.
    public var call: IncomingCall
    /// The caller in E.164 (nil when withheld).
    public var callerE164: String?
    /// How long it may still ring.
    public var remainingMs: UInt64
    /// The boards it is meant for.
    public var boards: [String]
    /// The boards it plays on now (connected, chosen over other calls, not finished by itself).
    public var playingOn: [String]
    /// Its pattern.
    public var pattern: PatternReference
    /// Whether it rings with the buzzer muted.
    public var silent: Bool

    /// Creates a call entry.
    public init(
      call: IncomingCall, callerE164: String?, remainingMs: UInt64, boards: [String], playingOn: [String],
      pattern: PatternReference, silent: Bool
    ) {
      self.call = call
      self.callerE164 = callerE164
      self.remainingMs = remainingMs
      self.boards = boards
      self.playingOn = playingOn
      self.pattern = pattern
      self.silent = silent
    }
  }

  /// Do-not-disturb as it stands.
  public struct DoNotDisturb: Equatable, Sendable {
    /// The mode in the configuration.
    public var configuredMode: DoNotDisturbMode
    /// The mode switched at run time, which wins; nil: none.
    public var override: DoNotDisturbMode?
    /// Whether it holds calls back now (on, or scheduled and inside quiet hours).
    public var isActive: Bool
    /// Whether calls ring with the motor only (the switched value, else the configured one).
    public var silent: Bool
    /// Silent mode as switched at run time; nil: the configured value applies.
    public var silentOverride: Bool?
    /// When the switched mode ends and the configured one applies again; nil: it lasts until switched again.
    public var until: Date?

    /// Creates a do-not-disturb entry.
    public init(
      configuredMode: DoNotDisturbMode, override: DoNotDisturbMode?, isActive: Bool, silent: Bool,
      silentOverride: Bool?, until: Date? = nil
    ) {
      self.until = until
      self.configuredMode = configuredMode
      self.override = override
      self.isActive = isActive
      self.silent = silent
      self.silentOverride = silentOverride
    }
  }

  /// One configured board.
  public struct Board: Equatable, Sendable {
    /// Its name.
    public var name: String
    /// Whether the daemon is connected to it.
    public var connected: Bool
    /// The call it was last given (playing, or finished by itself); nil: none.
    public var callID: String?
    /// The token of what plays on it; nil: nothing.
    public var token: UInt32?

    /// Creates a board entry.
    public init(name: String, connected: Bool, callID: String?, token: UInt32?) {
      self.name = name
      self.connected = connected
      self.callID = callID
      self.token = token
    }
  }
}
