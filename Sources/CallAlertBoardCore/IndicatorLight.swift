import CallAlertProtocol

/// One LED's indicator mode (SET_INDICATOR): off, on, or blinking with its phase counted from the moment
/// it was set, so that two boards set at the same moment blink together and a blink never stutters.
public struct IndicatorLight: Equatable, Sendable {
  /// Off, on or blink.
  public private(set) var mode: IndicatorMode = .off
  /// Lit time per blink period.
  public private(set) var onMs: UInt64 = 0
  /// Dark time per blink period.
  public private(set) var offMs: UInt64 = 0
  /// When the mode was set: the start of the first lit phase.
  public private(set) var sinceMs: UInt64 = 0

  /// Creates a dark indicator.
  public init() {}

  /// Applies a SET_INDICATOR setting at `nowMs`.
  public mutating func set(_ setting: IndicatorSetting, nowMs: UInt64) {
    mode = setting.mode
    onMs = max(1, UInt64(setting.onMs))
    offMs = max(1, UInt64(setting.offMs))
    sinceMs = nowMs
  }

  /// Whether the LED is lit at `nowMs`.
  public func isLit(atMs nowMs: UInt64) -> Bool {
    switch mode {
    case .off: return false
    case .on: return true
    case .blink: return (nowMs - min(nowMs, sinceMs)) % (onMs + offMs) < onMs
    }
  }

  /// The next moment after `nowMs` at which the LED changes; nil when it never does.
  public func nextChangeMs(after nowMs: UInt64) -> UInt64? {
    guard mode == .blink else { return nil }
    let period = onMs + offMs
    let phase = (nowMs - min(nowMs, sinceMs)) % period
    return nowMs + (phase < onMs ? onMs - phase : period - phase)
  }
}
