import CallAlertBridges
import CallAlertControl
import CallAlertDaemon
import CallAlertDoctor
import CallAlertEngine
import CallAlertHTTP
import CallAlertValues
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

extension DaemonAddOn {
  /// The HTTP API (CallAlertHTTP) on the daemon, when the config's `http:` or `--http` asks: its secrets
  /// read (files that others may read are refused at start), typed requests to the daemon's handler, the
  /// engine's events for `/v1/events` and `/metrics`, and each call's time to its first PLAY for `/metrics`.
  ///
  /// Without `http:` and `--http` it listens on `defaultListen` when one is given (`callalert run` gives
  /// ``defaultAddress``, so the page is there), and a daemon whose default address is taken runs on without HTTP.
  /// Do-not-disturb switched over HTTP is kept over a restart (``DoNotDisturbMemory``).
  ///
  /// - Parameters:
  ///   - onListening: told the port once the server listens (the bound one for port 0).
  ///   - defaultListen: where to listen when neither the config nor `--http` says; nil: nowhere.
  ///   - onGivenUp: told when the default address is taken and the daemon runs on without HTTP.
  public static func http(
    onListening: @escaping @Sendable (Int) async -> Void = { _ in }, defaultListen: HTTPListenAddress? = nil,
    onGivenUp: @escaping @Sendable (HTTPListenError) async -> Void = { _ in }
  ) -> DaemonAddOn {
    DaemonAddOn(
      name: "http",
      check: { (configuration) throws(DaemonStartError) in
        guard let settings = configuration.http else { return }
        _ = try bearerToken(settings)
        _ = try twilioAuthToken(settings)
        _ = try vonageSignatureSecret(settings)
      }
    ) { (context) throws(DaemonStartError) in
      guard let settings = context.configuration.http ?? defaultListen.map({ HTTPSettings(listen: $0) }) else {
        return []
      }
      var api = HTTPAPIConfiguration(
        host: settings.listen.host, port: settings.listen.port,
        token: try bearerToken(settings), twilioAuthToken: try twilioAuthToken(settings),
        vonageSignatureSecret: try vonageSignatureSecret(settings), publicURL: settings.publicURL,
        allowedHosts: settings.allowedHosts, limits: HTTPLimits(connections: context.connections))
      api.isDefaultAddress = context.configuration.http == nil
      let memory = DoNotDisturbMemory(
        historyPath: context.configuration.historyPath,
        configuredSilent: context.configuration.engine.doNotDisturb.silent, logger: context.logger)
      let handle: @Sendable (ControlRequest, String) async -> ControlResponse = { request, source in
        let response = await context.handle(request, source)
        if response.isSuccess, DoNotDisturbMemory.switches(request),
          case .status(let report) = await context.handle(.status, source)
        {
          memory.write(report.doNotDisturb)
        }
        return response
      }
      let events = await context.subscribe()
      var backend = HTTPBackend(
        handle: handle, events: events,
        linkCounters: {
          await context.linkStatistics().sorted { $0.key < $1.key }.map { board, link in
            HTTPLinkCounters(
              board: board, retransmissions: link.retransmissions, resyncs: link.resyncs,
              decodeErrors: link.decodeErrors)
          }
        }, callIsRecorded: context.callIsRecorded)
      backend.quietHours = { context.currentConfiguration().engine.doNotDisturb }
      backend.quietHoursEditor = quietHoursEditor(context)
      backend.patternFlashing = patternFlashing(context)
      backend.patternsFile = context.configuration.patternsFile
      backend.doctor = { [configPath = context.configPath, socketPath = context.configuration.socketPath] in
        // The checks `callalert doctor` runs, from inside the daemon: the boards and sources it holds are read
        // from its status, the rest (the config, the udev rule, the history's folder) from the machine.
        let doctor = Doctor(system: LiveDoctorSystem(), probes: .live, version: "callalert run")
        let report = await doctor.run(configPath: configPath, socketPath: socketPath)
        return report.findings.map {
          SetupFinding(check: $0.check, status: $0.status.rawValue, summary: $0.summary, fix: $0.fix)
        }
      }
      backend.vibrateOnlyBoards = context.configuration.engine.boards.filter(\.vibrateOnly).map(\.name)
      for board in context.configuration.engine.boards {
        if let light = board.kind.lightKind { backend.lightBoards[board.name] = String(describing: light) }
      }
      backend.beforeListening = { await memory.restore(now: Date(), through: context.handle) }
      let metrics = CallMetrics()
      context.onCallToPlay { board, latency in metrics.recordCallToPlay(board: board, latency) }
      return [
        HTTPService(
          configuration: api, backend: backend, metrics: metrics, logger: context.logger, onListening: onListening,
          onGivenUp: onGivenUp)
      ]
    }
  }

  /// Where `callalert run` serves the HTTP API and the page when neither the config nor `--http` says:
  /// 127.0.0.1:8935, on loopback only (docs/PAGE.md).
  public static let defaultAddress = HTTPListenAddress(host: "127.0.0.1", port: 8935)

  private static func bearerToken(_ settings: HTTPSettings) throws(DaemonStartError) -> String? {
    try secret(settings.tokenFile, "http.token_file", at: settings.places["token_file"], holding: "the bearer token")
  }

  private static func twilioAuthToken(_ settings: HTTPSettings) throws(DaemonStartError) -> String? {
    try secret(
      settings.twilioAuthTokenFile, "http.twilio_auth_token_file", at: settings.places["twilio_auth_token_file"],
      holding: "the Twilio auth token")
  }

  private static func vonageSignatureSecret(_ settings: HTTPSettings) throws(DaemonStartError) -> String? {
    try secret(
      settings.vonageSignatureSecretFile, "http.vonage_signature_secret_file",
      at: settings.places["vonage_signature_secret_file"], holding: "the Vonage signature secret")
  }

  /// A secret file's first line; a file others may read is refused, naming the config's place and field.
  private static func secret(
    _ path: String?, _ field: String, at place: String?, holding what: String
  ) throws(DaemonStartError) -> String? {
    guard let path else { return nil }
    do {
      return try SecretFile.read(path, holding: what)
    } catch {
      throw DaemonStartError(description: "\(place.map { "\($0): " } ?? "")\(field): \(error)")
    }
  }
}
