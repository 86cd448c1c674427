import CallAlertBridges
import CallAlertControl
import CallAlertEngine
import CallAlertText
import CallAlertTransport
import CallAlertValues
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The phone systems of the config's `sources:` (FRITZ!Box call monitor, Asterisk AMI): one client each,
/// feeding the alert service, logging what each does under its name, and reporting each one's health for
/// `callalert status`.
public final class BridgeService<C: Clock>: Sendable where C.Duration == Duration {
  private let clients: [BridgeClient<C>]

  /// Creates a client for each source; calls go to `intake`, as `source:<name>`, in the order each source
  /// sent them.
  ///
  /// - Parameter connector: how connections are opened; TCP in the daemon.
  public init(
    sources: [BridgeSource], region: String, intake: CallIntake<C>, clock: C, logger: Logger,
    connector: @escaping BridgeClient<C>.Connector = { host, port in
      try await TCPConnector.connect(host: host, port: port)
    }
  ) {
    clients = sources.map { source in
      let name = source.name
      return BridgeClient(
        source: source, region: region, clock: clock, connector: connector,
        deliver: { input in await intake.submit(input, from: .bridge(name)) },
        report: { report in Self.log(report, source: name, logger: logger) })
    }
  }

  /// Runs every client until cancelled.
  public func run() async {
    await withTaskGroup(of: Void.self) { group in
      for client in clients { group.addTask { await client.run() } }
    }
  }

  /// Each source's health, in the config's order.
  public func health() async -> [StatusReport.Source] {
    var sources: [StatusReport.Source] = []
    for client in clients {
      let health = await client.health
      let source = client.source
      sources.append(
        StatusReport.Source(
          name: source.name, kind: source.kind.rawValue, address: "\(source.host):\(source.port)",
          state: health.state.rawValue, reason: health.reason,
          nextAttemptMs: health.nextAttemptIn.map { Self.milliseconds($0) }, failures: health.failures))
    }
    return sources
  }

  private static func milliseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    return UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
  }

  private static func log(_ report: BridgeReport, source: String, logger: Logger) {
    switch report {
    case .connected(let text):
      logger.notice("source \(source): \(text)")
    case .failing(let reason, let retryIn):
      logger.warning(
        "source \(source): \(reason); next attempt in \(DurationText.secondsAndMilliseconds(retryIn))"
      )
    case .unreadable(let offset, let error):
      logger.warning("source \(source): skipped what could not be read at offset \(offset), \(error)")
    case .refused(let message):
      logger.warning("source \(source): the phone system answered with an error: \(message)")
    case .notification(let notification):
      logger.debug("source \(source): \(notification)")
    case .held(let why):
      logger.info("source \(source): not ringing: \(why)")
    }
  }
}

/// The phone-system sources (FRITZ!Box call monitor, Asterisk AMI): each connected, kept connected and read
/// until the daemon stops. Made only when the config names sources.
struct BridgeSourcesService<C: Clock>: CallSourceService where C.Duration == Duration {
  let bridges: BridgeService<C>

  /// The service for the context's `sources:`; nil when the config names none.
  init?(_ context: CallSourceContext<C>) {
    guard !context.configuration.sources.isEmpty else { return nil }
    bridges = BridgeService(
      sources: context.configuration.sources, region: context.configuration.engine.defaultRegion,
      intake: context.intake, clock: context.clock, logger: context.logger)
  }

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await withTaskExecutorPreference(DescriptorEventLoop.shared) { await bridges.run() }
    }
  }

  func health() async -> [StatusReport.Source] { await bridges.health() }
}
