import CallAlertProtocol

/// What a board is and the limits it enforces: everything that differs from one board design to another.
///
/// The defaults describe the reference board: one buzzer (200-8 000 Hz), one motor, two LEDs (LED 0 is
/// the indicator), one button, 16 pattern slots of up to 512 steps, 1 024-byte payloads, a window of 8,
/// the motor protected at 15 000 ms of continuous running (then 1 000 ms of rest) and at 70 % average
/// duty over 60 000 ms, and a 3 000 ms lease. The core applies ``sanitized``, which brings out-of-range
/// values into range.
public struct BoardConfiguration: Equatable, Sendable {
  /// A firmware version as major, minor, patch.
  public struct FirmwareVersion: Equatable, Sendable {
    /// Incompatible changes.
    public var major: UInt8
    /// Compatible additions.
    public var minor: UInt8
    /// Fixes.
    public var patch: UInt8

    /// Creates a version.
    public init(major: UInt8, minor: UInt8, patch: UInt8) {
      self.major = major
      self.minor = minor
      self.patch = patch
    }
  }

  /// The serial number, printable ASCII, at most ``BoardInfo/maxSerialLength`` bytes.
  public var serial: [UInt8]
  /// The firmware's version, reported in INFO.
  public var firmware: FirmwareVersion
  /// Buzzers; 0 for a board without one.
  public var buzzerChannels: UInt8 = 1
  /// The lowest frequency the buzzer plays.
  public var buzzerMinHz: UInt16 = 200
  /// The highest frequency the buzzer plays.
  public var buzzerMaxHz: UInt16 = 8_000
  /// Vibration motors, 0 to ``ActuatorState/maxMotors``; a pattern's motor byte drives all of them.
  public var motorChannels: UInt8 = 1
  /// LEDs, 0 to 8; LED 0 is the indicator.
  public var leds: UInt8 = 2
  /// Buttons, 0 to 8; button 0 stops what plays.
  public var buttons: UInt8 = 1
  /// The most slots a table may have, 1 to ``PatternTable/maxSlots``.
  public var patternSlots: UInt8 = 16
  /// The most steps in one pattern.
  public var maxSteps: UInt16 = 512
  /// The largest payload the board accepts, ``Frame/minimumMaxPayload`` to ``Frame/maxPayload``.
  public var maxPayload: UInt16 = 1_024
  /// The most commands in flight the board accepts (and events it keeps in flight).
  public var window: UInt8 = 8
  /// The motor's longest continuous run before a forced rest: long enough for any ring (a 30 s call
  /// alternates motor and pause), short enough that a stuck pattern cannot overheat a coin motor.
  public var motorMaxOnMs: UInt16 = 15_000
  /// The forced rest after the longest run.
  public var motorRestMs: UInt16 = 1_000
  /// The window over which the motor's average duty is measured, split into 60 buckets.
  public var motorDutyWindowMs: UInt16 = 60_000
  /// The average duty, in percent, at which the motor is held off until it falls below again.
  public var motorMaxDutyPercent: UInt8 = 70
  /// The lease's length at boot, ``Command/minLeaseMs`` to ``Command/maxLeaseMs``.
  public var leaseMs: UInt16 = 3_000
  /// How long a button level must hold to count: longer than contact bounce (typically < 5 ms),
  /// shorter than a deliberate tap (> 50 ms).
  public var debounceMs: UInt16 = 20
  /// How long a button must be held for a long press.
  public var longPressMs: UInt16 = 1_000
  /// The most events pending (in flight plus queued) before the oldest non-BOOT one is dropped.
  public var maxPendingEvents: Int = 16
  /// Event retransmission rules.
  public var timing: LinkTiming = .standard

  /// Creates the reference board's configuration with its identity.
  public init(serial: [UInt8] = [], firmware: FirmwareVersion = FirmwareVersion(major: 0, minor: 1, patch: 0)) {
    self.serial = serial
    self.firmware = firmware
  }

  /// The protocol versions this firmware speaks: v1.0 and v1.1 (PROTOCOL.md §7).
  public static let versions: ClosedRange<UInt8> = Hello.protocolVersions

  /// This configuration with every value brought into the range the protocol and the core allow.
  public var sanitized: BoardConfiguration {
    var c = self
    c.serial = Array(serial.prefix(BoardInfo.maxSerialLength)).map { $0 < 0x20 || $0 > 0x7E ? 0x3F : $0 }
    c.motorChannels = min(motorChannels, UInt8(ActuatorState.maxMotors))
    c.leds = min(leds, 8)
    c.buttons = min(buttons, 8)
    c.patternSlots = max(1, min(patternSlots, UInt8(PatternTable.maxSlots)))
    c.maxSteps = max(1, maxSteps)
    c.maxPayload = max(UInt16(Frame.minimumMaxPayload), min(maxPayload, UInt16(Frame.maxPayload)))
    c.window = max(1, window)
    c.motorMaxOnMs = max(1, motorMaxOnMs)
    c.motorDutyWindowMs = max(UInt16(MotorGuard.bucketCount), motorDutyWindowMs)
    c.motorMaxDutyPercent = max(1, min(motorMaxDutyPercent, 100))
    c.leaseMs = max(Command.minLeaseMs, min(leaseMs, Command.maxLeaseMs))
    c.maxPendingEvents = max(2, maxPendingEvents)
    if buzzerMinHz > buzzerMaxHz { c.buzzerMaxHz = buzzerMinHz }
    return c
  }

  /// The limits patterns must respect on this board.
  public var patternLimits: PatternLimits {
    PatternLimits(maxSteps: maxSteps, buzzerMinHz: buzzerMinHz, buzzerMaxHz: buzzerMaxHz, patternSlots: patternSlots)
  }

  /// The capabilities INFO reports, with the table capacity the flash allows and the lease now in force.
  public func capabilities(tableCapacity: Int, leaseMs: UInt16) -> Capabilities {
    Capabilities(
      buzzerChannels: buzzerChannels, buzzerMinHz: buzzerMinHz, buzzerMaxHz: buzzerMaxHz,
      motorChannels: motorChannels, leds: leds, buttons: buttons, patternSlots: patternSlots, maxSteps: maxSteps,
      maxPayload: maxPayload, window: window, tableCapacity: UInt32(clamping: tableCapacity),
      motorMaxOnMs: motorMaxOnMs, motorDutyWindowMs: motorDutyWindowMs, motorMaxDutyPercent: motorMaxDutyPercent,
      leaseMs: leaseMs, eventQueue: UInt8(clamping: maxPendingEvents))
  }
}
