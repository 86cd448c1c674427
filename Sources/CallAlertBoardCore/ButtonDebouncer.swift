import CallAlertProtocol

/// One button's debouncing and press timing, a pure function of the raw level samples and their times.
///
/// A level counts once it has held for `debounceMs` (20 ms): contact bounce shorter than that is
/// ignored. Times are taken from the raw edge that started a level that then held, so `held_ms` is the
/// true press length, not shifted by the debounce delay:
/// - the press is *down* `debounceMs` after its edge (the core silences a ringing call at that moment);
/// - held for `longPressMs` (1 000 ms) from its edge, it is a *long press*, reported at that moment
///   (and nothing at release); a release edge still being debounced defers the decision;
/// - released before, it is a *press*, reported when the release has held, with the time between edges.
public struct ButtonDebouncer: Sendable {
  /// How long a level must hold.
  public let debounceMs: UInt64
  /// How long a hold makes a long press.
  public let longPressMs: UInt64
  /// The debounced state.
  public private(set) var isPressed = false

  private var candidate = false
  private var candidateSinceMs: UInt64
  private var pressedSinceMs: UInt64 = 0
  private var longReported = false

  /// Creates a debouncer that sees the button released.
  public init(debounceMs: UInt64, longPressMs: UInt64, nowMs: UInt64) {
    self.debounceMs = debounceMs
    self.longPressMs = longPressMs
    candidateSinceMs = nowMs
  }

  /// A press to report.
  public struct Report: Equatable, Sendable {
    /// Press or long press.
    public var kind: PressKind
    /// How long the button was held (press) or has been held (long press).
    public var heldMs: UInt16

    /// Creates a report.
    public init(kind: PressKind, heldMs: UInt16) {
      self.kind = kind
      self.heldMs = heldMs
    }
  }

  /// What one sample changed.
  public struct Output: Equatable, Sendable {
    /// The button just went down (debounced).
    public var wentDown = false
    /// A press or long press to report.
    public var report: Report? = nil

    /// Creates an output.
    public init(wentDown: Bool = false, report: Report? = nil) {
      self.wentDown = wentDown
      self.report = report
    }
  }

  /// Takes the raw level (`true` = pressed) seen at `nowMs`.
  ///
  /// A level that changes is first taken as having held until `nowMs`: an owner that samples late (a wake-up
  /// after a flash erase, a virtual board on a busy host) must not lose a press whose debounce was never
  /// sampled because the release came first.
  public mutating func sample(pressed level: Bool, nowMs: UInt64) -> Output {
    guard level != candidate else { return settle(nowMs: nowMs) }
    let before = settle(nowMs: nowMs)
    candidate = level
    candidateSinceMs = nowMs
    let after = settle(nowMs: nowMs)
    return Output(wentDown: before.wentDown || after.wentDown, report: after.report ?? before.report)
  }

  /// Applies what the current level has done by `nowMs`: finished its debounce, or reached the long press.
  private mutating func settle(nowMs: UInt64) -> Output {
    var output = Output()
    if candidate != isPressed && nowMs - candidateSinceMs >= debounceMs {
      isPressed = candidate
      if isPressed {
        pressedSinceMs = candidateSinceMs
        longReported = false
        output.wentDown = true
      } else if !longReported {
        output.report = Report(kind: .press, heldMs: UInt16(clamping: candidateSinceMs - pressedSinceMs))
      }
    }
    if isPressed && !longReported && candidate && nowMs - pressedSinceMs >= longPressMs {
      longReported = true
      output.report = Report(kind: .longPress, heldMs: UInt16(clamping: nowMs - pressedSinceMs))
    }
    return output
  }

  /// When a sample with an unchanged level would change something: a level finishing its debounce, or
  /// a hold reaching the long-press time. Raw level changes are the owner's to report (by sampling).
  public var nextWakeMs: UInt64? {
    if candidate != isPressed { return candidateSinceMs + debounceMs }
    if isPressed && !longReported { return pressedSinceMs + longPressMs }
    return nil
  }
}
