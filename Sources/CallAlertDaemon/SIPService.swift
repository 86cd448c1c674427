import CallAlertBridges
import CallAlertControl
import CallAlertEngine
import CallAlertInputs
import CallAlertSIP
import Logging
import ServiceLifecycle
import Synchronization

/// The config's SIP ring extensions (`sip: accounts:`, docs/SIP.md) as a named service: each account
/// registered and kept registered, its INVITEs ringing the boards through the alert service, its health in
/// `callalert status` (kind `sip`) and what it does in the log under its name. Added to the group only when
/// the config has accounts.
struct SIPService<C: Clock>: Service where C.Duration == Duration {
  let extensions: SIPRingExtension<C>

  /// The service for the config's accounts; nil when it has none.
  ///
  /// - Parameter announce: told an account's entry each time its state changes (registered, failing...), for an
  ///   event line beside the engine's events.
  init?(
    configuration: DaemonConfiguration, service: AlertService<C>, clock: C, logger: Logger,
    announce: (@Sendable (StatusReport.Source) -> Void)? = nil
  ) {
    guard !configuration.sipAccounts.isEmpty else { return nil }
    // Every change of an account's state is followed by a report (a log line), so the states are compared
    // there; the extension is only known once made, hence the holder.
    let made = Mutex<SIPRingExtension<C>?>(nil)
    let lastStates = Mutex<[String: String]>([:])
    let announceChanges: @Sendable () -> Void = {
      guard let announce, let extensions = made.withLock({ $0 }) else { return }
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
      ringLimit: .milliseconds(Int64(clamping: configuration.engine.capMs)), clock: clock,
      deliver: { input in
        for event in await service.submit(input) {
          // Refusals are summed per source and minute by the engine, and logged so (`calls_refused`).
          if case .ignored(let id, let reason) = event, reason != .tooManyCalls {
            logger.info("sip: the engine ignored \(id): \(reason.rawValue)")
          }
        }
        await service.roomForRecords()
      },
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
  @Sendable func sources() -> [StatusReport.Source] { Self.sources(of: extensions) }

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
