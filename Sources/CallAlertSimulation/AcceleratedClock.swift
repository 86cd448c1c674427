/// A clock that runs `speed` times faster than real time: the demo runs the engine, the virtual board
/// and the link on it, so a 30 s cap passes in 30/speed seconds with every timing rule intact.
public struct AcceleratedClock: Clock, Sendable {
  /// A moment: accelerated time since the clock was made.
  public struct Instant: InstantProtocol, Sendable {
    /// Accelerated time since the clock's origin.
    public var offset: Duration

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    /// The accelerated time from this instant to `other`.
    public func duration(to other: Instant) -> Duration { other.offset - offset }
    /// Orders instants.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  /// How many accelerated seconds pass per real second.
  public let speed: Double
  private let origin: ContinuousClock.Instant

  /// Creates a clock running `speed` times faster than real time (1 is real time).
  public init(speed: Double) {
    self.speed = max(0.01, speed)
    origin = ContinuousClock.now
  }

  /// The accelerated time now.
  public var now: Instant { Instant(offset: (ContinuousClock.now - origin) * speed) }

  /// The finest step the underlying clock shows, accelerated.
  public var minimumResolution: Duration { .microseconds(1) }

  /// Sleeps until `deadline` in accelerated time.
  public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let remaining = now.duration(to: deadline)
    guard remaining > .zero else { return }
    try await ContinuousClock().sleep(for: remaining / speed, tolerance: nil)
  }
}
