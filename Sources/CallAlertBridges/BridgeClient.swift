import CallAlertEngine
import CallAlertTransport
import CallAlertValues

/// Listens to one phone system: connects, reads its protocol, follows its calls and hands the engine's inputs
/// on; when the connection fails or drops, it tries again after a backoff (fast first, up to a minute) on the
/// injected clock, so tests drive the backoff with a test clock.
///
/// Calls are followed across reconnections: a call whose end was lost while the connection was down still
/// ends (at its cap, or when the box reuses its connection id).
public actor BridgeClient<C: Clock> where C.Duration == Duration {
  /// Opens a connection: `TCPConnector.connect` in the daemon, an in-memory pipe in some tests.
  public typealias Connector = @Sendable (_ host: String, _ port: Int) async throws -> any ByteTransport
  /// Reads the AMI secret.
  public typealias SecretReader = @Sendable (_ path: String) throws -> String

  /// The source.
  public nonisolated let source: BridgeSource
  private let clock: C
  private let connector: Connector
  private let readSecret: SecretReader
  private let deliver: @Sendable (EngineInput) async -> Void
  private let report: @Sendable (BridgeReport) -> Void
  private var router: BridgeRouter
  private var fritz = FritzCallTracker()
  private var ami: AMICallTracker
  private var backoff = ReconnectBackoff()
  private var state = BridgeHealth(state: .connecting)
  private var retryAt: C.Instant?

  /// The ActionID of the login, to tell its response from others.
  static var loginActionID: String { "callalert-login" }

  /// Creates a client.
  ///
  /// - Parameters:
  ///   - region: the region caller numbers in filters are read in.
  ///   - deliver: takes each input for the engine, in order.
  ///   - report: takes what happened, for the log.
  public init(
    source: BridgeSource, region: String, clock: C,
    connector: @escaping Connector = { host, port in try await TCPConnector.connect(host: host, port: port) },
    readSecret: @escaping SecretReader = { path in try SecretFile.read(path, holding: "the AMI secret") },
    deliver: @escaping @Sendable (EngineInput) async -> Void, report: @escaping @Sendable (BridgeReport) -> Void
  ) {
    self.source = source
    self.clock = clock
    self.connector = connector
    self.readSecret = readSecret
    self.deliver = deliver
    self.report = report
    router = BridgeRouter(source: source, region: region)
    ami = AMICallTracker(endpoints: source.endpoints, extensions: source.extensions)
  }

  /// The connection's health now.
  public var health: BridgeHealth {
    var health = state
    if health.state == .failing, let retryAt {
      let remaining = clock.now.duration(to: retryAt)
      health.nextAttemptIn = remaining < .zero ? .zero : remaining
    }
    return health
  }

  /// Connects and listens until cancelled, reconnecting after failures.
  public func run() async {
    while !Task.isCancelled {
      let reason = await session()
      guard !Task.isCancelled else { return }
      let delay = backoff.nextDelay()
      state = BridgeHealth(state: .failing, reason: reason, nextAttemptIn: delay, failures: state.failures + 1)
      retryAt = clock.now.advanced(by: delay)
      report(.failing(reason: reason, retryIn: delay))
      do { try await clock.sleep(for: delay) } catch { return }
      retryAt = nil
    }
  }

  /// One connection, from connecting to its end; returns why it ended.
  private func session() async -> String {
    var secret: String?
    if source.kind == .ami {
      guard let file = source.secretFile else { return "no secret_file configured" }
      do { secret = try readSecret(file) } catch { return "\(error)" }
    }
    let transport: any ByteTransport
    do {
      transport = try await connector(source.host, source.port)
    } catch {
      return "\(error)"
    }
    defer { transport.close() }
    switch source.kind {
    case .fritzbox:
      connected("connected to \(source.host):\(source.port)")
      return await fritzSession(transport)
    case .ami:
      return await amiSession(transport, secret: secret ?? "")
    }
  }

  private func connected(_ text: String) {
    backoff.reset()
    state = BridgeHealth(state: .connected)
    report(.connected(text))
  }

  private func fritzSession(_ transport: any ByteTransport) async -> String {
    var lines = LineDecoder(maximumLength: 1_024)
    do {
      for try await chunk in transport.incoming {
        for line in lines.feed(chunk) {
          switch line {
          case .tooLong(let offset):
            report(.unreadable(offset: offset, error: BridgeParseError(column: 1, "the line is longer than 1 KiB")))
          case .line(let bytes, let offset):
            guard !bytes.isEmpty else { continue }
            do {
              let parsed = try FritzMonitorLine.parse(bytes)
              await handle(fritz.handle(parsed))
            } catch {
              report(.unreadable(offset: offset, error: error))
            }
          }
        }
      }
      return "the connection was closed by \(source.host):\(source.port)"
    } catch {
      return lost(error)
    }
  }

  private func amiSession(_ transport: any ByteTransport, secret: String) async -> String {
    let username = source.username ?? ""
    let login = AMIFrame([
      ("Action", "Login"), ("ActionID", Self.loginActionID), ("Username", username), ("Secret", secret),
      ("Events", "call"),
    ])
    do {
      try await transport.write(login.encoded)
    } catch {
      return "cannot send the login: \(error)"
    }
    var decoder = AMIFrameDecoder()
    var loggedIn = false
    do {
      for try await chunk in transport.incoming {
        for item in decoder.feed(chunk) {
          switch item {
          case .greeting: continue
          case .malformed(let offset, let error): report(.unreadable(offset: offset, error: error))
          case .frame(let frame, _):
            if let response = frame["Response"] {
              let message = frame["Message"] ?? "(no message)"
              if frame["ActionID"] == Self.loginActionID {
                guard response.lowercased() == "success" else {
                  return "AMI refused the login of '\(username)': \(message)"
                }
                loggedIn = true
                connected("logged in to \(source.host):\(source.port) as \(username)")
              } else if response.lowercased() == "error" {
                report(.refused(message))
              }
            } else if loggedIn, frame["Event"] != nil {
              await handle(ami.handle(frame))
            }
          }
        }
      }
      return "the connection was closed by \(source.host):\(source.port)"
    } catch {
      return lost(error)
    }
  }

  /// Why a connection ended: a closed one says so in words about a network, not a serial port.
  private func lost(_ error: any Error) -> String {
    if let error = error as? TransportError, error.code == .disconnected {
      return "the connection was closed by \(source.host):\(source.port)"
    }
    return "the connection was lost: \(error)"
  }

  private func handle(_ notifications: [BridgeNotification]) async {
    for notification in notifications {
      report(.notification(notification))
      switch router.route(notification) {
      case .input(let input): await deliver(input)
      case .held(let why): report(.held(why))
      case .none: continue
      }
    }
  }
}
