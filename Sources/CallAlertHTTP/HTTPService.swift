import CallAlertControl
import CallAlertEngine
internal import Hummingbird
import Logging
internal import NIOCore
import ServiceLifecycle
import Synchronization

/// The daemon's HTTP API as a named service of its group: listens where the configuration says, feeds the
/// event stream and the metrics from the engine's events, and on graceful shutdown ends the event streams so
/// the server can close its connections.
public struct HTTPService: Service {
  private let configuration: HTTPAPIConfiguration
  private let backend: HTTPBackend
  private let metrics: CallMetrics
  private let logger: Logger
  private let onListening: @Sendable (Int) async -> Void
  private let onGivenUp: @Sendable (HTTPListenError) async -> Void

  /// Creates the service.
  ///
  /// - Parameters:
  ///   - metrics: What `/metrics` shows; the daemon may record into it too.
  ///   - onListening: Called once the server listens, with its port (the bound one when asked for port 0).
  ///   - onGivenUp: Called when the default address (``HTTPAPIConfiguration/isDefaultAddress``) is taken and
  ///     the daemon runs on without HTTP.
  public init(
    configuration: HTTPAPIConfiguration, backend: HTTPBackend, metrics: CallMetrics = CallMetrics(), logger: Logger,
    onListening: @escaping @Sendable (Int) async -> Void = { _ in },
    onGivenUp: @escaping @Sendable (HTTPListenError) async -> Void = { _ in }
  ) {
    self.onGivenUp = onGivenUp
    self.configuration = configuration
    self.backend = backend
    self.metrics = metrics
    self.logger = logger
    self.onListening = onListening
  }

  /// Serves until graceful shutdown or cancellation.
  public func run() async throws {
    await backend.beforeListening()
    let feed = EventFeed(capacity: configuration.limits.eventBuffer)
    let api = HTTPAPI(configuration: configuration, backend: backend, feed: feed, metrics: metrics, logger: logger)
    let (seconds, attoseconds) = configuration.limits.idleTimeout.components
    let idle = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    let host = configuration.host
    let logger = logger
    let onListening = onListening
    let budget = configuration.limits.connections
    let refusals = Atomic(0)
    let refused: @Sendable () -> Void = {
      let count = refusals.add(1, ordering: .relaxed).newValue
      // Logged at first and then rarely: a flood of refused connections must not flood the log.
      if count <= 10 || count % 1_000 == 0 {
        let places = "the API holds \(budget.inUse(.http)) of its \(budget.httpLimit) places"
        logger.warning(
          "http: closed a connection at once: \(places), the control socket \(budget.inUse(.controlSocket)); \(count) closed so far"
        )
      }
    }
    let app = Application(
      router: api.router(),
      server: .http1(
        configuration: .init(
          additionalChannelHandlers: [ConnectionBudgetHandler(budget: budget, refused: refused), UnreadBodyGuard()],
          idleTimeout: idle)),
      configuration: ApplicationConfiguration(
        address: .hostname(host, port: configuration.port), serverName: "callalert"),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? 0
        let origin = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        logger.notice("http: listening on \(origin)")
        logger.notice("http: the page: \(origin)\(PagePaths.live)")
        await onListening(port)
      },
      logger: logger)
    let events = backend.events
    let metrics = metrics
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        for await published in events {
          metrics.record(published.event, at: published.at)
          await feed.publish(
            name: EventLine.name(of: published.event), data: EventLine.json(published.event, at: published.at))
        }
      }
      defer { group.cancelAll() }
      do {
        try await withGracefulShutdownHandler {
          try await app.run()
        } onGracefulShutdown: {
          Task { await feed.finish() }
        }
      } catch {
        let failure = HTTPListenError(host: host, port: configuration.port, error: error)
        guard configuration.isDefaultAddress else {
          logger.error("\(failure)")
          throw failure
        }
        // Nobody asked for this address: another daemon (a `run --simulate` beside the real one) may hold it.
        logger.warning(
          "\(failure); the daemon runs on without HTTP (give the config's http.listen or --http another port)")
        await onGivenUp(failure)
        try? await gracefulShutdown()
      }
      await feed.finish()
    }
  }
}
