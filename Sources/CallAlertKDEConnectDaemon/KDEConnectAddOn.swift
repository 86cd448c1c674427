import CallAlertControl
import CallAlertDaemon
import CallAlertEngine
import CallAlertKDEConnect
import CallAlertValues
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension DaemonAddOn {
  /// KDE Connect (CallAlertKDEConnect) on the daemon, when the config has a `kdeconnect:` section: the phones'
  /// calls go to the daemon's handler as any source's (do-not-disturb, allowed and repeated callers apply), each
  /// phone a source of its own for the call budget; the phones show in `status` and their changes as events; a
  /// `pair` request accepts a pending pairing; an acknowledged call asks its phone to mute the ringer.
  ///
  /// - Parameters:
  ///   - clock: What the announcements and the pairing's 30 s wait on; nil: the daemon's clock.
  ///   - onListening: told the TCP port once the sockets are open.
  public static func kdeConnect(
    clock: (any Clock<Duration>)? = nil, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
  ) -> DaemonAddOn {
    DaemonAddOn(
      name: "kdeconnect",
      check: { (configuration) throws(DaemonStartError) in
        guard let settings = configuration.kdeConnect else { return }
        // Made (or read) before the socket and locks, so a state folder that cannot be written stops the start.
        do {
          _ = try KDEConnectCertificate.loadOrCreate(in: settings.stateDirectory)
        } catch {
          throw DaemonStartError(description: "kdeconnect: \(error)")
        }
      }
    ) { (context) throws(DaemonStartError) in
      guard let settings = context.configuration.kdeConnect else { return [] }
      let logger = context.logger
      let announce = context.announce
      let handle = context.handle
      let service: KDEConnectService
      do {
        service = try KDEConnectService(
          settings: settings, capMs: context.configuration.engine.capMs, clock: clock ?? context.clock,
          deliver: { input, device in
            // The budget's source names the phone; `#` would cut the name short (it marks a socket connection).
            let source = CallSource.kdeConnect(device).rawValue.replacing("#", with: "")
            let answer = await handle(.input(input), source)
            if case .failure(let failure) = answer { logger.info("kdeconnect \(device): \(failure.error)") }
          },
          report: { report in
            KDEConnectDaemonService.log(report, logger: logger)
            if let changed = report.changed { announce(KDEConnectDaemonService.source(changed)) }
          })
      } catch {
        throw DaemonStartError(description: "kdeconnect: \(error)")
      }
      context.hooks.addSources { await service.statuses().map(KDEConnectDaemonService.source) }
      context.hooks.setPairing { device in
        do {
          let done = try await service.pair(device)
          logger.notice("kdeconnect: \(done)")
          return .ok
        } catch {
          return .failure("pair: \(error)")
        }
      }
      return [KDEConnectDaemonService(service: service, subscribe: context.subscribe, onListening: onListening)]
    }
  }
}
