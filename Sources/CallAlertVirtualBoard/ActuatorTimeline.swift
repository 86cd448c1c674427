import CallAlertProtocol

/// A board's actuator history: the board's millisecond clock and every actuator's state at each change.
///
/// It keeps the most recent ``capacity`` changes: once full, the oldest quarter goes, so a simulated board
/// that rings for days (`callalert run --simulate`) does not grow without end. The default holds about a
/// hundred thousand changes, far more than any test or demo makes; a caller that watches the changes as they
/// come (``VirtualHardware/onChange``) can keep fewer.
public struct ActuatorTimeline: Equatable, Sendable {
  /// The changes a timeline keeps unless told otherwise.
  public static let defaultCapacity = 100_000

  /// One change.
  public struct Entry: Equatable, Sendable {
    /// The board's clock, in ms since boot of the first core.
    public var ms: UInt64
    /// The state from then on.
    public var state: ActuatorState

    /// Creates an entry.
    public init(ms: UInt64, state: ActuatorState) {
      self.ms = ms
      self.state = state
    }

    /// The entry as one JSON object on a line, e.g.
    /// `{"t_ms": 1200, "buzzer_hz": 2700, "buzzer_volume": 200, "motor": [180], "led": 1}`.
    public var jsonLine: String {
      let motors = state.motors.map(String.init).joined(separator: ", ")
      return
        "{\"t_ms\": \(ms), \"buzzer_hz\": \(state.buzzerHz), \"buzzer_volume\": \(state.buzzerVolume), "
        + "\"motor\": [\(motors)], \"led\": \(state.leds)}"
    }
  }

  /// The changes, in time order: the most recent ``capacity`` of them.
  public private(set) var entries: [Entry] = []
  /// The most changes kept (at least 4).
  public let capacity: Int

  /// Creates an empty timeline that keeps the most recent `capacity` changes.
  public init(capacity: Int = ActuatorTimeline.defaultCapacity) {
    self.capacity = max(4, capacity)
  }

  /// Records `state` at `ms` unless it equals the last recorded state; returns whether anything changed.
  @discardableResult
  public mutating func record(_ state: ActuatorState, at ms: UInt64) -> Bool {
    if let last = entries.last, last.state == state { return false }
    if let last = entries.last, last.ms == ms {
      // Changed twice within one millisecond: the last state wins.
      entries[entries.count - 1].state = state
      if entries.count >= 2, entries[entries.count - 2].state == state { entries.removeLast() }
      return true
    }
    if entries.count >= capacity { entries.removeFirst(capacity / 4) }
    entries.append(Entry(ms: ms, state: state))
    return true
  }

  /// The state in force at `ms` (nil before the first entry kept).
  public func state(at ms: UInt64) -> ActuatorState? {
    var current: ActuatorState? = nil
    for entry in entries {
      if entry.ms > ms { break }
      current = entry.state
    }
    return current
  }

  /// The first time at or after `from` when the board alerts (buzzer sounding or a motor running).
  public func firstAlert(from: UInt64 = 0) -> UInt64? {
    entries.first { $0.ms >= from && $0.state.isAlerting }?.ms
  }

  /// The first time at or after `from` when nothing alerts any more.
  public func firstSilence(from: UInt64 = 0) -> UInt64? {
    entries.first { $0.ms >= from && !$0.state.isAlerting }?.ms
  }

  /// The times at which alerting started or stopped, as (start, end) spans; an open span ends at nil.
  public var alertSpans: [(start: UInt64, end: UInt64?)] {
    var spans: [(start: UInt64, end: UInt64?)] = []
    var start: UInt64? = nil
    for entry in entries {
      if entry.state.isAlerting, start == nil { start = entry.ms }
      if !entry.state.isAlerting, let begun = start {
        spans.append((begun, entry.ms))
        start = nil
      }
    }
    if let start { spans.append((start, nil)) }
    return spans
  }
}
