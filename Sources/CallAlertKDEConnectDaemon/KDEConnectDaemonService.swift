import CallAlertControl
import CallAlertEngine
import CallAlertKDEConnect
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The KDE Connect source as a named service of the daemon's group: the sockets and links, and the engine's
/// acknowledgements turned into `request_mute` for the phone that rings.
struct KDEConnectDaemonService: Service {
  let service: KDEConnectService
  let subscribe: @Sendable () async -> AsyncStream<(event: EngineEvent, at: Date)>
  let onListening: @Sendable (Int) async -> Void

  func run() async throws {
    await cancelWhenGracefulShutdown {
      let events = await subscribe()
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await service.run(onListening: onListening) }
        group.addTask {
          for await (event, _) in events {
            if case .stopped(let id, .acknowledged) = event { await service.acknowledged(callID: id) }
          }
        }
        await group.next()
        group.cancelAll()
      }
    }
  }

  /// A phone's entry in `status` (kind `kdeconnect`).
  static func source(_ status: KDEConnectDeviceStatus) -> StatusReport.Source {
    StatusReport.Source(
      name: status.name, kind: "kdeconnect", address: status.address, state: status.state.rawValue,
      reason: status.reason)
  }

  static func log(_ report: KDEConnectReport, logger: Logger) {
    let message: Logger.Message = "kdeconnect: \(report.message)"
    switch report.level {
    case .debug: logger.debug(message)
    case .info: logger.info(message)
    case .notice: logger.notice(message)
    case .warning: logger.warning(message)
    }
  }
}
