import CallAlertControl
import Synchronization

/// What add-ons hand back to the daemon once their services are made: their entries in `status` (a phone
/// paired over KDE Connect) and the answer to a `pair` request. The control handler exists before the add-ons'
/// services, so it asks here at each request.
public final class DaemonAddOnHooks: Sendable {
  /// Answers a `pair` request for a device.
  public typealias Pairing = @Sendable (_ device: String) async -> ControlResponse

  private let state = Mutex<(sources: [@Sendable () async -> [StatusReport.Source]], pairing: Pairing?)>(([], nil))

  /// Empty hooks.
  public init() {}

  /// Adds entries to `status`'s sources, asked for at each `status`.
  public func addSources(_ sources: @escaping @Sendable () async -> [StatusReport.Source]) {
    state.withLock { $0.sources.append(sources) }
  }

  /// Sets who answers `pair` requests.
  public func setPairing(_ pairing: @escaping Pairing) {
    state.withLock { $0.pairing = pairing }
  }

  /// Every add-on's entries.
  func sources() async -> [StatusReport.Source] {
    var all: [StatusReport.Source] = []
    for source in state.withLock({ $0.sources }) { all += await source() }
    return all
  }

  /// The answer to `pair`: a failure saying what to do when nothing pairs.
  func pair(_ device: String) async -> ControlResponse {
    guard let pairing = state.withLock({ $0.pairing }) else {
      return .failure(
        "pair: KDE Connect is off; add a 'kdeconnect:' section to the config and restart the daemon (docs/PHONE.md)")
    }
    return await pairing(device)
  }
}
