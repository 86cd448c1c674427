import CallAlertProtocol
import CallAlertRuntime
import CallAlertSerial
import CallAlertTransport

/// How a ``BoardClient`` talks to its board.
public struct BoardClientOptions: Sendable {
  /// What the client offers in HELLO (versions, payload, window, tracing).
  public var hello: Hello
  /// Retransmission rules (v1's defaults: 100 ms plus line time, 5 transmissions).
  public var timing: LinkTiming
  /// The lease the client asks for; it renews the lease at a third of this while something plays.
  public var leaseMs: UInt16
  /// How to open the board again after a disconnect; nil leaves the client disconnected.
  public var reconnect: Reconnect?
  /// HELLO exchanges (each with every try of ``timing``) before a handshake fails: more than one gives a
  /// board behind a slow, backed-up line time to answer; a probe of an unknown port wants one.
  public var handshakeAttempts: Int
  /// Watching that the board still answers; nil (the default) leaves a silent board to the next command.
  public var liveness: Liveness?
  /// Bytes without a valid frame before the line is reported as unreadable (see
  /// ``BoardClientEvent/unreadableLine(bytes:)``): more than the largest frame, so that a frame arriving in
  /// pieces never counts.
  public var noiseThreshold: Int

  /// How the client keeps an eye on a board that stays plugged in but may stop answering.
  ///
  /// The keepalives are the lease renewals while something plays (every third of the lease) and, when
  /// ``idleProbe`` is set, a PING at that period while nothing plays. One that goes unanswered through every
  /// retry marks the board unresponsive (``BoardClientEvent/unresponsive(reason:)``): with the default
  /// lease of 3 s and the v1 retry rules, within 1.6 s of the last answer, before the board's own lease
  /// runs out. The client then sends HELLO at once, then after `retryDelay`, doubling up to
  /// `maxRetryDelay`, until the board answers (``BoardClientEvent/responsive(_:_:)``).
  public struct Liveness: Sendable {
    /// The PING period while nothing plays; nil: idle boards are not probed.
    public var idleProbe: Duration?
    /// The first pause between handshakes with an unresponsive board.
    public var retryDelay: Duration
    /// The longest pause between them.
    public var maxRetryDelay: Duration

    /// Creates a policy.
    public init(
      idleProbe: Duration? = .seconds(3), retryDelay: Duration = .milliseconds(500),
      maxRetryDelay: Duration = .seconds(5)
    ) {
      self.idleProbe = idleProbe
      self.retryDelay = retryDelay
      self.maxRetryDelay = maxRetryDelay
    }
  }

  /// Reopening a board that went away: the opener is called with growing pauses until it succeeds and the
  /// board that answers has the same serial number.
  public struct Reconnect: Sendable {
    /// Opens a fresh transport to the board (e.g. finds the port with its serial number and opens it).
    public var open: @Sendable () async throws -> any ByteTransport
    /// The first pause.
    public var initialDelay: Duration
    /// The longest pause.
    public var maxDelay: Duration
    /// Give up after this long without success; nil tries forever.
    public var giveUpAfter: Duration?

    /// The pauses between tries, from ``initialDelay`` doubling up to ``maxDelay``.
    public var backoff: Backoff { Backoff(initial: initialDelay, maximum: maxDelay) }

    /// Creates a policy.
    public init(
      initialDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(5), giveUpAfter: Duration? = nil,
      open: @escaping @Sendable () async throws -> any ByteTransport
    ) {
      self.open = open
      self.initialDelay = initialDelay
      self.maxDelay = maxDelay
      self.giveUpAfter = giveUpAfter
    }
  }

  /// Creates options.
  public init(
    hello: Hello = Hello(window: 8), timing: LinkTiming = .standard, leaseMs: UInt16 = 3_000,
    reconnect: Reconnect? = nil, handshakeAttempts: Int = 3, liveness: Liveness? = nil, noiseThreshold: Int = 2_048
  ) {
    self.hello = hello
    self.timing = timing
    self.leaseMs = leaseMs
    self.reconnect = reconnect
    self.handshakeAttempts = max(1, handshakeAttempts)
    self.liveness = liveness
    self.noiseThreshold = max(1, noiseThreshold)
  }
}
