import CallAlertControl
import CallAlertEngine

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the HTTP API needs to know: where it listens, its secrets and limits. The daemon builds it from the
/// config's `http:` section (docs/CONFIG.md) after reading the secrets' files.
public struct HTTPAPIConfiguration: Sendable {
  /// The host to bind: an IPv4 or IPv6 literal, or `localhost`.
  public var host: String
  /// The port to bind; 0 asks the system for a free one (read it back with `onListening`).
  public var port: Int
  /// The bearer token every route but `/healthz` asks for; nil: none asked (loopback only).
  public var token: String?
  /// The Twilio account's auth token; when set, Twilio webhooks must carry a valid `X-Twilio-Signature`.
  public var twilioAuthToken: String?
  /// The Vonage account's signature secret; when set, Vonage webhooks must carry a valid signed JWT
  /// (``VonageSignature``), which stands in for ``token`` on that route.
  public var vonageSignatureSecret: String?
  /// The URL the providers call, without `/v1/...` (e.g. `https://example.org/callalert`); nil: `http://` and
  /// the request's `Host`.
  public var publicURL: String?
  /// Names besides loopback that a request's `Host` may carry when no token is set (``RequestOriginPolicy``).
  public var allowedHosts: [String]
  /// Sizes and times.
  public var limits: HTTPLimits
  /// Whether the address is the built-in default rather than one the config or `--http` asked for: when it is
  /// taken (another daemon's page), the daemon logs it and runs on without HTTP instead of refusing to start.
  public var isDefaultAddress = false

  /// Creates a configuration.
  public init(
    host: String = "127.0.0.1", port: Int, token: String? = nil, twilioAuthToken: String? = nil,
    vonageSignatureSecret: String? = nil, publicURL: String? = nil, allowedHosts: [String] = [],
    limits: HTTPLimits = HTTPLimits()
  ) {
    self.vonageSignatureSecret = vonageSignatureSecret
    self.allowedHosts = allowedHosts
    self.host = host
    self.port = port
    self.token = token
    self.twilioAuthToken = twilioAuthToken
    self.publicURL = publicURL
    self.limits = limits
  }
}

/// The API's limits: what a caller may send and how long it may take.
public struct HTTPLimits: Sendable {
  /// The largest request body; a larger one is refused with 413.
  public var bodyBytes: Int
  /// How long a connection may sit idle (headers not sent, or between requests) before it is closed.
  public var idleTimeout: Duration
  /// How long a request's body may take to arrive; a slower one is refused with 408.
  public var bodyTimeout: Duration
  /// How many events `GET /v1/events` keeps for `Last-Event-ID` resumes.
  public var eventBuffer: Int
  /// How often an idle event stream gets a comment line, so proxies and clients see it is alive.
  public var eventKeepAlive: Duration
  /// The connections the API may hold (event streams included), shared with the control socket when the
  /// daemon hands in its own; one more is closed at once, before a byte of it is read.
  public var connections: ConnectionBudget

  /// Creates limits: 64 KiB bodies, 30 s idle, 10 s per body, 256 events kept, a keep-alive every 15 s, and a
  /// budget of its own (256 connections) unless one is given.
  public init(
    bodyBytes: Int = 64 * 1_024, idleTimeout: Duration = .seconds(30), bodyTimeout: Duration = .seconds(10),
    eventBuffer: Int = 256, eventKeepAlive: Duration = .seconds(15), connections: ConnectionBudget = ConnectionBudget()
  ) {
    self.connections = connections
    self.bodyBytes = bodyBytes
    self.idleTimeout = idleTimeout
    self.bodyTimeout = bodyTimeout
    self.eventBuffer = eventBuffer
    self.eventKeepAlive = eventKeepAlive
  }
}

/// The daemon as the HTTP API sees it: a handler of typed control requests and the engine's events. The
/// API never imports the daemon; the daemon hands these in.
public struct HTTPBackend: Sendable {
  /// Answers one typed request; the `String` names where it came from (`http`, `sipgate`, ...), for logs and
  /// id-less pushes.
  public var handle: @Sendable (ControlRequest, String) async -> ControlResponse
  /// The engine's events as they happen, for `GET /v1/events` and the call counters of `/metrics`.
  public var events: AsyncStream<(event: EngineEvent, at: Date)>
  /// Each connected board's link counters, read at each `/metrics` scrape.
  public var linkCounters: @Sendable () async -> [HTTPLinkCounters]
  /// Whether the call history holds a call with this id: a Twilio `ringing` for such a call is a replay, and
  /// does not ring again.
  public var callIsRecorded: @Sendable (String) async -> Bool
  /// The do-not-disturb settings in force (the config file's, or the page's: ``quietHoursEditor``), for the
  /// page's quiet hours; nil: not shown.
  public var quietHours: @Sendable () -> DoNotDisturbConfiguration?
  /// Where the page's changes to the quiet hours go; nil: the page only shows them.
  public var quietHoursEditor: QuietHoursEditor?
  /// The boards the config makes vibrate only (`vibrate_only`, a bed shaker): the page draws their buzzer
  /// quiet.
  public var vibrateOnlyBoards: [String] = []
  /// The boards that are USB lights, by name, with their kind (`kuando`, `blink1`, `luxafor`, `embrava`): the
  /// page draws them as a lamp, with a Kuando's ringtone, and no motor.
  public var lightBoards: [String: String] = [:]
  /// Runs `callalert doctor`'s checks and gives their findings, for the setup page's *Run the checks*; nil:
  /// not offered.
  public var doctor: (@Sendable () async -> [SetupFinding])?
  /// The config's pattern file (`patterns.file`), which the page draws; nil: the built-in patterns only.
  public var patternsFile: String?
  /// Where the page's *Save and flash* goes; nil: the editor only checks (no pattern file is configured).
  public var patternFlashing: PatternFlashing?
  /// Runs once before the server listens (the add-on switches do-not-disturb back to what was kept over the
  /// restart), so the first request already sees it.
  public var beforeListening: @Sendable () async -> Void = {}

  /// Creates a backend.
  public init(
    handle: @escaping @Sendable (ControlRequest, String) async -> ControlResponse,
    events: AsyncStream<(event: EngineEvent, at: Date)>,
    linkCounters: @escaping @Sendable () async -> [HTTPLinkCounters] = { [] },
    callIsRecorded: @escaping @Sendable (String) async -> Bool = { _ in false },
    quietHours: DoNotDisturbConfiguration? = nil
  ) {
    self.quietHours = { quietHours }
    self.handle = handle
    self.events = events
    self.linkCounters = linkCounters
    self.callIsRecorded = callIsRecorded
  }
}

/// A board link's counters on its current connection (from zero again after a reconnect).
public struct HTTPLinkCounters: Equatable, Sendable {
  /// The board's name.
  public var board: String
  /// Frames sent again because no answer came.
  public var retransmissions: UInt64
  /// Commands resent because the board had restarted (resyncs of the link).
  public var resyncs: UInt64
  /// Frames the decoder dropped (bad CRC, bad framing, too long).
  public var decodeErrors: UInt64

  /// Creates counters.
  public init(board: String, retransmissions: UInt64, resyncs: UInt64, decodeErrors: UInt64) {
    self.board = board
    self.retransmissions = retransmissions
    self.resyncs = resyncs
    self.decodeErrors = decodeErrors
  }
}
