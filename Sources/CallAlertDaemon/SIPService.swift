import CallAlertBridges
import CallAlertControl
import CallAlertEngine
import CallAlertSIP
import CallAlertValues
import Logging
import ServiceLifecycle
import Synchronization

/// The config's SIP ring extensions (`sip: accounts:`, docs/SIP.md) as a named source of calls: each account
/// registered and kept registered, its INVITEs handed to the intake as `sip:<account>`, its health in
/// `callalert status` (kind `sip`) and what it does in the log under its name. Made only when the config has
/// accounts.
struct SIPService<C: Clock>: CallSourceService where C.Duration == Duration {
  let extensions: SIPRingExtension<C>

  /// The service for the context's accounts; nil when the config has none. Each change of an account's state
  /// is announced (an event line beside the engine's events).
  init?(_ context: CallSourceContext<C>) {
    let configuration = context.configuration
    guard !configuration.sipAccounts.isEmpty else { return nil }
    let (intake, logger, announce) = (context.intake, context.logger, context.announce)
    // Every change of an account's state is followed by a report (a log line), so the states are compared
    // there; the extension is only known once made, hence the holder.
    let made = Mutex<SIPRingExtension<C>?>(nil)
    let lastStates = Mutex<[String: String]>([:])
    let announceChanges: @Sendable () -> Void = {
      guard let extensions = made.withLock({ $0 }) else { return }
      let changed = lastStates.withLock { last in
        Self.sources(of: extensions).filter { source in
          defer { last[source.name] = source.state }
          return last[source.name] != source.state
        }
      }
      for source in changed { announce(source) }
    }
    extensions = SIPRingExtension(
      accounts: configuration.sipAccounts, region: configuration.engine.defaultRegion,
      ringLimit: .milliseconds(Int64(clamping: configuration.engine.capMs)), clock: context.clock,
      deliver: { input, source in await intake.submit(input, from: source) },
      report: { report in
        Self.log(report, logger: logger)
        announceChanges()
      })
    made.withLock { $0 = extensions }
  }

  func run() async throws {
    await cancelWhenGracefulShutdown { await extensions.run() }
  }

  /// Each account's entry for `status`.
  func health() async -> [StatusReport.Source] { Self.sources(of: extensions) }

  private static func sources(of extensions: SIPRingExtension<C>) -> [StatusReport.Source] {
    extensions.health().map { entry in
      let account = entry.account
      return StatusReport.Source(
        name: account.name, kind: "sip", address: account.registrar ?? account.bindURI,
        state: entry.health.state.rawValue, reason: entry.health.reason,
        nextAttemptMs: entry.health.nextAttemptIn.map(Self.milliseconds), failures: entry.health.failures)
    }
  }

  private static func milliseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    return UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
  }

  private static func log(_ report: SIPRingExtension<C>.Report, logger: Logger) {
    let message: Logger.Message = "sip \(report.account): \(report.message)"
    switch report.level {
    case .debug: logger.debug(message)
    case .info: logger.info(message)
    case .notice: logger.notice(message)
    case .warning: logger.warning(message)
    }
  }
}
