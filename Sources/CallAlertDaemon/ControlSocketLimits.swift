/// The bounds the control socket keeps every client within (documented in docs/CONFIG.md, "Control socket").
public struct ControlSocketLimits: Equatable, Sendable {
  /// The longest request line, in bytes; a longer one is skipped while it is read and answered with an error.
  public var maxLineLength: Int
  /// The most answer bytes a client may leave unread before it is disconnected (one answer always fits).
  public var maxUnsentBytes: Int
  /// The most clients served at once; one more is answered with an error line and closed.
  public var maxConnections: Int
  /// How long a client may stay connected without sending or reading anything.
  public var idleTimeout: Duration
  /// Descriptors kept free for the boards and the history: a client that would take one of the last ones
  /// is answered with an error line and closed.
  public var reservedDescriptors: Int
  /// The first and the longest pause in accepting after the system ran out of descriptors (EMFILE, ENFILE);
  /// the pause doubles while the shortage lasts.
  public var acceptBackoff: ClosedRange<Duration>

  /// Creates limits.
  public init(
    maxLineLength: Int = 256 * 1024, maxUnsentBytes: Int = 1024 * 1024, maxConnections: Int = 64,
    idleTimeout: Duration = .seconds(60), reservedDescriptors: Int = 32,
    acceptBackoff: ClosedRange<Duration> = .milliseconds(50) ... .seconds(2)
  ) {
    self.maxLineLength = maxLineLength
    self.maxUnsentBytes = maxUnsentBytes
    self.maxConnections = maxConnections
    self.idleTimeout = idleTimeout
    self.reservedDescriptors = reservedDescriptors
    self.acceptBackoff = acceptBackoff
  }

  /// The daemon's limits: 256 KiB lines, 1 MiB unread, 64 clients, 60 s idle, 32 descriptors kept free,
  /// accepting paused for 50 ms to 2 s when descriptors run out.
  public static let standard = ControlSocketLimits()
}
