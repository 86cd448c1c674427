import CallAlertProtocol

/// Protects the vibration motor from a host (or a pattern) that would run it until it overheats.
///
/// Two independent limits, both measured on the motor's actual output:
/// - **Continuous on-time.** After `maxOnMs` (15 000 ms on the reference board) of uninterrupted running
///   the motor is forced off for `restMs` (1 000 ms), and one FAULT `motor_on_time` (detail: the limit
///   in ms) is raised. A step that turns the motor off ends the run.
/// - **Average duty.** On-time is summed in 60 buckets of `windowMs / 60` (1 000 ms), a ring buffer
///   that covers the last 59 whole buckets and the current partial one. When the sum reaches
///   `maxDutyPercent` (70 %) of `windowMs` (60 000 ms), i.e. 42 000 ms, the motor is held off until the
///   sum falls below again (it can only fall when an old bucket leaves the window), and one FAULT
///   `motor_duty` (detail: the duty in percent) is raised.
///
/// Other actuators are not affected: the call still rings and blinks while the motor rests. Every
/// moment at which the guard's decision can change is reported by ``nextWakeMs``, exactly.
public struct MotorGuard: Sendable {
  /// Buckets in the duty window.
  public static let bucketCount = 60

  /// The longest continuous run.
  public let maxOnMs: UInt64
  /// The rest forced after the longest run.
  public let restMs: UInt64
  /// The duty window.
  public let windowMs: UInt64
  /// The highest average duty, in percent.
  public let maxDutyPercent: UInt64
  /// One bucket's length.
  public let bucketMs: UInt64
  /// On-time in the window at which the duty limit strikes.
  public let thresholdMs: UInt64

  /// Whether the motor actually runs (as of the last ``update(nowMs:requested:)``).
  public private(set) var isRunning = false
  /// When the current run started (meaningful while running).
  public private(set) var runStartMs: UInt64 = 0
  /// The end of the forced rest, if one is under way.
  public private(set) var restUntilMs: UInt64? = nil
  /// Whether the duty limit holds the motor off.
  public private(set) var isDutyHeld = false
  /// On-time in the window now.
  public private(set) var windowOnMs: UInt64 = 0

  private var buckets: [UInt16]  // on-ms per bucket; a bucket is at most 65 535 / 60 ms
  private var bucket: UInt64  // absolute number of the current bucket: time / bucketMs
  private var lastMs: UInt64

  /// Creates a guard with nothing run yet.
  public init(maxOnMs: UInt64, restMs: UInt64, windowMs: UInt64, maxDutyPercent: UInt64, nowMs: UInt64) {
    self.maxOnMs = max(1, maxOnMs)
    self.restMs = restMs
    self.bucketMs = max(1, min(windowMs, 65_535) / UInt64(MotorGuard.bucketCount))
    self.windowMs = bucketMs * UInt64(MotorGuard.bucketCount)
    self.maxDutyPercent = maxDutyPercent
    thresholdMs = max(1, self.windowMs * maxDutyPercent / 100)
    buckets = Array(repeating: 0, count: MotorGuard.bucketCount)
    bucket = nowMs / bucketMs
    lastMs = nowMs
  }

  /// The guard's decision and the faults it raised.
  public struct Outcome: Equatable, Sendable {
    /// Whether the motor may run now (it was requested and no limit holds it).
    public var running: Bool
    /// FAULT events raised by this update: at most one per limit, only when the limit strikes.
    public var faults: [FaultEvent]

    /// Creates an outcome.
    public init(running: Bool, faults: [FaultEvent]) {
      self.running = running
      self.faults = faults
    }
  }

  /// Accounts the motor's running up to `nowMs`, applies both limits, and decides whether the motor
  /// runs from `nowMs` on, given whether the playing step asks for it.
  public mutating func update(nowMs: UInt64, requested: Bool) -> Outcome {
    let now = max(nowMs, lastMs)
    account(to: now)
    var faults: [FaultEvent] = []
    if let until = restUntilMs, now >= until { restUntilMs = nil }
    if isRunning && now - runStartMs >= maxOnMs {
      restUntilMs = now + restMs
      faults.append(FaultEvent(.motorOnTime, detail: UInt32(clamping: maxOnMs)))
    }
    if isDutyHeld {
      if windowOnMs < thresholdMs { isDutyHeld = false }
    } else if windowOnMs >= thresholdMs {
      isDutyHeld = true
      faults.append(FaultEvent(.motorDuty, detail: UInt32(clamping: windowOnMs * 100 / windowMs)))
    }
    let running = requested && restUntilMs == nil && !isDutyHeld
    if running && !isRunning { runStartMs = now }
    isRunning = running
    return Outcome(running: running, faults: faults)
  }

  /// The next moment a decision can change without a new request: the end of a rest, the run reaching
  /// its limit, the window reaching its threshold, or (while held) the next bucket boundary.
  public var nextWakeMs: UInt64? {
    var wake: UInt64? = restUntilMs
    func consider(_ time: UInt64) { wake = min(wake ?? time, time) }
    if isRunning {
      consider(runStartMs + maxOnMs)
      // Sums only fall at bucket boundaries, so this is never later than the real crossing.
      consider(lastMs + (thresholdMs > windowOnMs ? thresholdMs - windowOnMs : 0))
    }
    if isDutyHeld { consider((bucket + 1) * bucketMs) }
    return wake
  }

  /// Adds the on-time since the last call to the buckets, rotating out the buckets that left the window.
  private mutating func account(to now: UInt64) {
    guard now > lastMs else { return }
    let target = now / bucketMs
    let count = UInt64(MotorGuard.bucketCount)
    if target - bucket >= count {
      // The whole window passed in one state: every bucket is full or empty.
      let partial = now - target * bucketMs
      for index in buckets.indices { buckets[index] = isRunning ? UInt16(bucketMs) : 0 }
      buckets[Int(target % count)] = isRunning ? UInt16(partial) : 0
      windowOnMs = isRunning ? (count - 1) * bucketMs + partial : 0
    } else {
      var time = lastMs
      while time < now {
        let bucketEnd = (bucket + 1) * bucketMs
        let segmentEnd = min(now, bucketEnd)
        if isRunning {
          buckets[Int(bucket % count)] += UInt16(segmentEnd - time)
          windowOnMs += segmentEnd - time
        }
        time = segmentEnd
        if time == bucketEnd {
          bucket += 1
          let slot = Int(bucket % count)
          windowOnMs -= UInt64(buckets[slot])
          buckets[slot] = 0
        }
      }
    }
    bucket = target
    lastMs = now
  }
}
