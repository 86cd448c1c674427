import CallAlertLights
import CallAlertProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Everything the engine's behaviour depends on; loaded from the config file (see `ConfigurationFile`).
public struct EngineConfiguration: Equatable, Sendable {
  /// The longest a call rings, from its start (its sent-at time when given). Never above 30 s.
  public var capMs: UInt64
  /// How long a hangup that arrived before its call is remembered, so the late call never rings.
  public var tombstoneMs: UInt64
  /// The boards, by name, in the order the config lists them.
  public var boards: [AlertBoard]
  /// Which pattern a call gets, first matching rule wins; then the call's hint; then `defaultPattern`.
  public var patternRules: [PatternRule]
  /// The pattern when no rule matches and the call gives no usable hint.
  public var defaultPattern: PatternReference
  /// Do-not-disturb.
  public var doNotDisturb: DoNotDisturbConfiguration
  /// The region used to read numbers written without a country code (ISO 3166 alpha-2, e.g. "US", "DE").
  public var defaultRegion: String
  /// The indicator shown while missed calls wait for acknowledgement.
  public var missedIndicator: IndicatorSetting

  /// The most any configuration may allow.
  public static let maximumCapMs: UInt64 = 30_000

  /// Creates a configuration; a cap above 30 s is lowered to 30 s.
  public init(
    capMs: UInt64 = maximumCapMs, tombstoneMs: UInt64 = 5 * 60_000, boards: [AlertBoard] = [AlertBoard(name: "board")],
    patternRules: [PatternRule] = [], defaultPattern: PatternReference = .slot(0),
    doNotDisturb: DoNotDisturbConfiguration = DoNotDisturbConfiguration(), defaultRegion: String = "US",
    missedIndicator: IndicatorSetting = IndicatorSetting(led: 0, mode: .blink, onMs: 150, offMs: 1_850)
  ) {
    self.capMs = min(capMs, Self.maximumCapMs)
    self.tombstoneMs = tombstoneMs
    self.boards = boards
    self.patternRules = patternRules
    self.defaultPattern = defaultPattern
    self.doNotDisturb = doNotDisturb
    self.defaultRegion = defaultRegion
    self.missedIndicator = missedIndicator
  }
}

/// One board the engine drives: a desk buzzer, a bed shaker.
public struct AlertBoard: Equatable, Sendable {
  /// The board's name in rules, events and status.
  public var name: String
  /// Where to find it: a port path, `auto`, or nil to match by serial number.
  public var port: String?
  /// The board's serial number, to find it among several and to recognise it when it returns.
  public var serialNumber: String?
  /// Play with the buzzer muted on this board always (a bed shaker has none, or should not wake others).
  public var vibrateOnly: Bool
  /// A CallAlert board on a serial port, or a USB light.
  public var kind: BoardKind
  /// How a light shows calls; unused by a CallAlert board.
  public var light: LightAppearance
  /// Where a virtual light (`run --simulate`) records every report it receives, as JSON lines; nil: nowhere.
  public var timeline: String?

  /// Creates a board entry.
  public init(
    name: String, port: String? = nil, serialNumber: String? = nil, vibrateOnly: Bool = false,
    kind: BoardKind = .serial, light: LightAppearance = LightAppearance(), timeline: String? = nil
  ) {
    self.timeline = timeline
    self.name = name
    self.port = port
    self.serialNumber = serialNumber
    self.vibrateOnly = vibrateOnly
    self.kind = kind
    self.light = light
  }
}

/// A pattern as rules name it: a slot of the board's table, a name (of a slot in the board's table, or a
/// built-in pattern sent inline), or a pattern given in full.
public enum PatternReference: Equatable, Sendable {
  /// A slot number.
  case slot(UInt8)
  /// A pattern name: a slot of that name on the board, else a built-in, else the default.
  case named(String)
  /// A pattern sent inline with PLAY.
  case inline(Pattern)
}

/// Chooses the pattern and the boards for calls that match. Empty criteria match everything.
public struct PatternRule: Equatable, Sendable {
  /// Caller numbers (any format; compared in E.164) this rule applies to; empty: any caller.
  public var callers: [String]
  /// Levels this rule applies to; empty: any level.
  public var levels: [InterruptionLevel]
  /// The pattern to play; nil keeps the next rule's or the default.
  public var pattern: PatternReference?
  /// Boards to ring, by name; empty: every board.
  public var boards: [String]
  /// `true`: ring with the buzzer alone, the motor kept still; `false`: with the motor too (the default);
  /// nil keeps the next matching rule's choice. Silent mode and vibrate-only boards still use the motor.
  public var buzzerOnly: Bool?

  /// Creates a rule.
  public init(
    callers: [String] = [], levels: [InterruptionLevel] = [], pattern: PatternReference? = nil, boards: [String] = [],
    buzzerOnly: Bool? = nil
  ) {
    self.callers = callers
    self.levels = levels
    self.pattern = pattern
    self.boards = boards
    self.buzzerOnly = buzzerOnly
  }
}

/// Do-not-disturb, after the best phones.
public struct DoNotDisturbConfiguration: Equatable, Sendable {
  /// Off, on, or following the schedule.
  public var mode: DoNotDisturbMode
  /// Quiet-hours windows, used when `mode` is `.scheduled`.
  public var schedule: [QuietHoursWindow]
  /// The time zone the schedule's times are in (IANA name, e.g. "Europe/Berlin").
  public var timeZone: TimeZone
  /// Callers (any format; compared in E.164) who always ring. Withheld numbers never match.
  public var allowedCallers: [String]
  /// A second call from the same number within this window breaks through (iOS: 3 min; up to 15 as
  /// Android allows); nil turns repeated-caller breakthrough off. The boundary is included.
  public var repeatedCallerWindowMs: UInt64?
  /// Whether time-sensitive calls break through.
  public var allowTimeSensitive: Bool
  /// Silent mode: ring with the motor only, whether or not do-not-disturb is active.
  public var silent: Bool

  /// The longest repeated-caller window (Android's 15 min).
  public static let maximumRepeatedCallerWindowMs: UInt64 = 15 * 60_000

  /// Creates a configuration; the repeated-caller window is capped at 15 minutes.
  public init(
    mode: DoNotDisturbMode = .off, schedule: [QuietHoursWindow] = [], timeZone: TimeZone = .current,
    allowedCallers: [String] = [], repeatedCallerWindowMs: UInt64? = 3 * 60_000, allowTimeSensitive: Bool = true,
    silent: Bool = false
  ) {
    self.mode = mode
    self.schedule = schedule
    self.timeZone = timeZone
    self.allowedCallers = allowedCallers
    self.repeatedCallerWindowMs = repeatedCallerWindowMs.map { min($0, Self.maximumRepeatedCallerWindowMs) }
    self.allowTimeSensitive = allowTimeSensitive
    self.silent = silent
  }
}

/// Whether do-not-disturb holds calls back.
public enum DoNotDisturbMode: String, Equatable, Codable, Sendable {
  /// Never.
  case off
  /// Always.
  case on
  /// During the schedule's windows.
  case scheduled
}

/// A quiet-hours window: on `weekdays`, from `start` (included) to `end` (excluded), both minutes after
/// midnight in the configuration's time zone. A window whose end is not after its start ends the next
/// day; its weekday is the day it starts on.
public struct QuietHoursWindow: Equatable, Sendable {
  /// Days the window starts on, 1 = Sunday ... 7 = Saturday (Foundation's `Calendar` numbering).
  public var weekdays: Set<Int>
  /// Minutes after midnight when it starts (0-1439).
  public var startMinute: Int
  /// Minutes after midnight when it ends (0-1439); not after `startMinute` means the next day.
  public var endMinute: Int

  /// Creates a window.
  public init(weekdays: Set<Int> = Set(1...7), startMinute: Int, endMinute: Int) {
    self.weekdays = weekdays
    self.startMinute = startMinute
    self.endMinute = endMinute
  }
}
