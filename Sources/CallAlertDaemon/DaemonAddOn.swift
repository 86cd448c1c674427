import CallAlertControl
import CallAlertEngine
import CallAlertPatterns
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

/// A service that rides on the daemon without the daemon knowing it (the HTTP API, in CallAlertHTTPDaemon):
/// given what the daemon offers, it returns services for the group, or none when the config does not ask.
///
/// Why a hook and not an import: the HTTP API's server (Hummingbird, SwiftNIO) brings C module maps that,
/// in any module compiled against it, make Glibc's `stat` members need an import of CDispatch under
/// MemberImportVisibility, and the daemon's own files use `stat` (socket directory, logging, systemd). It stays
/// free of it; `callalert` and the HTTP tests add the add-on.
public struct DaemonAddOn: Sendable {
  /// What it is, for errors: `http`.
  public var name: String
  /// Checks the configuration before the daemon takes its socket and locks (a secret file others may read
  /// is refused here, so a refused start leaves nothing behind).
  public var check: @Sendable (DaemonConfiguration) throws(DaemonStartError) -> Void
  /// Makes its services.
  public var services: @Sendable (DaemonAddOnContext) async throws(DaemonStartError) -> [any Service]

  /// Creates an add-on.
  public init(
    name: String, check: @escaping @Sendable (DaemonConfiguration) throws(DaemonStartError) -> Void = { _ in },
    services: @escaping @Sendable (DaemonAddOnContext) async throws(DaemonStartError) -> [any Service]
  ) {
    self.name = name
    self.check = check
    self.services = services
  }
}

/// What the daemon offers an add-on.
public struct DaemonAddOnContext: Sendable {
  /// The configuration the daemon started with (command-line overrides applied).
  public var configuration: DaemonConfiguration
  /// The configuration in force now: the one started with, or the last reload's.
  public var currentConfiguration: @Sendable () -> DaemonConfiguration
  /// The config file as `--config` named it; nil: the default path (or the built-in defaults).
  public var configPath: String?
  /// Answers a typed request as the control socket does; the `String` names the source (`http`, `sipgate`).
  public var handle: @Sendable (ControlRequest, String) async -> ControlResponse
  /// Subscribes to the engine's events (each call a new stream).
  public var subscribe: @Sendable () async -> AsyncStream<(event: EngineEvent, at: Date)>
  /// Each connected board's link counters, by name.
  public var linkStatistics: @Sendable () async -> [String: BoardLinkStatistics]
  /// Registers a listener told, each time a board acknowledged a call's PLAY, the board and the time since
  /// the call reached the daemon (from any source); see ``AlertService/onCallToPlay(_:)``.
  public var onCallToPlay:
    @Sendable (_ listener: @escaping @Sendable (_ board: String, _ latency: Duration) -> Void) -> Void
  /// Whether the call history holds a call with this id (after every record handed in so far); false when the
  /// history cannot be read.
  public var callIsRecorded: @Sendable (_ callID: String) async -> Bool
  /// The connections the daemon's listeners share: a listener an add-on opens takes its places here.
  public var connections: ConnectionBudget
  /// The daemon's logger.
  public var logger: Logger
  /// The daemon's clock, for an add-on's deadlines and retries (a test's clock when a test drives the daemon).
  public var clock: any Clock<Duration>
  /// Where an add-on registers its `status` entries and its answer to `pair`.
  public var hooks: DaemonAddOnHooks
  /// Prints a source's change of state as an event line (beside the engine's events), as SIP accounts do.
  public var announce: @Sendable (StatusReport.Source) -> Void
  /// Compiles a pattern file's text for `patterns.file` and checks the names the configuration in force uses
  /// against it, as a start would: the build, or every error (diagnostics, then unknown names).
  public var buildPatterns: @Sendable (_ text: String, _ path: String) throws(DaemonStartError) -> PatternBuild
  /// Puts a new pattern table on every board (``AlertService/installPatterns(_:progress:)``).
  public var installPatterns:
    @Sendable (PatternBuild, _ progress: @escaping @Sendable (String, TableInstallProgress) -> Void) async ->
      [String: TableInstallOutcome]
}

extension Daemon {
  /// The add-ons' services.
  static func addOnServices<C: Clock<Duration>>(
    _ options: DaemonOptions, _ configuration: DaemonConfiguration, handler: ControlHandler<C>,
    service: AlertService<C>, clock: C, connections: ConnectionBudget, logger: Logger, hooks: DaemonAddOnHooks,
    announce: @escaping @Sendable (StatusReport.Source) -> Void
  ) async throws(DaemonStartError) -> [ServiceGroupConfiguration.ServiceConfiguration] {
    let context = DaemonAddOnContext(
      configuration: configuration, currentConfiguration: { [reloader = handler.reloader] in reloader.current },
      configPath: options.configPath,
      handle: { request, source in await handler.handle(request, source: source, lineNumber: 1) },
      subscribe: { await service.subscribe { (event: $0.event, at: $0.at) } },
      linkStatistics: { await service.boardLinkStatistics() },
      onCallToPlay: { listener in service.onCallToPlay(listener) },
      callIsRecorded: { [history = handler.history] id in await history.containsCall(id: id) },
      connections: connections, logger: logger, clock: clock, hooks: hooks, announce: announce,
      buildPatterns: { [reloader = handler.reloader] (text, path) throws(DaemonStartError) in
        try PatternCatalog.build(text: text, path: path, for: reloader.current)
      },
      installPatterns: { build, progress in await service.installPatterns(build, progress: progress) })
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
    for addOn in options.addOns {
      services += try await addOn.services(context).map { .init(service: $0) }
    }
    return services
  }

  /// `--http ADDR:PORT` over the config's `http:` (keeping its token and URL), checked: beyond loopback a
  /// token file is required, so anyone who can reach the port cannot ring the boards.
  static func applyHTTPOption(
    _ options: DaemonOptions, to configuration: inout DaemonConfiguration
  )
    throws(DaemonStartError)
  {
    if let listen = options.http {
      var settings = configuration.http ?? HTTPSettings(listen: listen)
      settings.listen = listen
      configuration.http = settings
    }
    if let settings = configuration.http, !settings.listen.isLoopback, settings.tokenFile == nil {
      throw DaemonStartError(
        description: "http: \(settings.listen) is reachable beyond this machine: set http.token_file in the config "
          + "(a 0600 file holding the bearer token), or listen on 127.0.0.1")
    }
  }

  /// The add-ons' own checks, for the daemon that is about to serve them. Only `run` asks: a client (`status`,
  /// `notify`, `history`) reads the same config for its socket and serves nothing, so an `http:` section is
  /// none of its business.
  static func checkAddOns(
    _ options: DaemonOptions, for configuration: DaemonConfiguration
  )
    throws(DaemonStartError)
  {
    // An http: section that nothing serves is an error, not a silently missing API.
    if configuration.http != nil && !options.addOns.contains(where: { $0.name == "http" }) {
      throw DaemonStartError(
        description: "http: this program was built without the HTTP API; remove the http: section or run "
          + "the callalert command, which serves it")
    }
    // So is a kdeconnect: section.
    if configuration.kdeConnect != nil && !options.addOns.contains(where: { $0.name == "kdeconnect" }) {
      throw DaemonStartError(
        description: "kdeconnect: this program was built without KDE Connect; remove the kdeconnect: section or "
          + "run the callalert command, which serves it")
    }
    for addOn in options.addOns { try addOn.check(configuration) }
  }
}
