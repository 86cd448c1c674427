import CallAlertControl
import CallAlertEngine
import CallAlertValues
import Logging

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

/// Answers control requests, from the socket and from standard input alike: a typed ``ControlRequest`` in,
/// a typed ``ControlResponse`` out. Bytes are read and written by ``ControlLineEndpoint``, at the edge.
/// Bad input gets an error naming the place; nothing it carried is half-applied.
struct ControlHandler<C: Clock>: Sendable where C.Duration == Duration {
  let service: AlertService<C>
  /// Where the requests' calls go, as the source that sent them (`socket`, `stdin`, `http`...).
  let intake: CallIntake<C>
  let history: HistoryWriter
  let reloader: ConfigurationReloader
  let logger: Logger
  /// The configuration in force (reloads replace it).
  var configuration: DaemonConfiguration { reloader.current }
  /// The sources beside the control requests (SIP, phone systems, MQTT), for their health in `status`.
  var sources: [any CallSourceService] = []
  /// What the add-ons add: their `status` entries, the answer to `pair`.
  var addOns: DaemonAddOnHooks? = nil

  /// Answers one request; `source` and `lineNumber` name where it came from, for logs and id-less pushes.
  func handle(_ request: ControlRequest, source: String, lineNumber: Int) async -> ControlResponse {
    // A request over HTTP (the API, the page) is one body, not a line of a stream.
    let place = source == "http" ? "body" : "\(source):\(lineNumber)"
    if let problem = request.problem(at: service.wallNow, place: place) {
      return .failure(problem)
    }
    switch request {
    case .input(let input):
      let events = await intake.submit(input, from: CallSource(controlSource: source))
      return answer(RequestOutcome.of(input, events: events), source, lineNumber)
    case .push(let document):
      do {
        let push = try PushPayload.read(document, rules: configuration.pushRules, receivedAt: Date())
        // Id-less calls are matched per input, across the socket's connections (`socket#3` is `socket`).
        let input = String(source.prefix { $0 != "#" })
        let outcome = await intake.submit(push, source: input)
        return answer(outcome, source, lineNumber)
      } catch {
        logger.notice("rejected push \(error)")
        return .failure(error)
      }
    case .status:
      let snapshot = await service.snapshot()
      let infos = await service.boardInfos()
      let links = await service.boardLinks()
      let problems = await service.boardProblems()
      let devices = await service.boardDevices()
      var ports: [String: String] = [:]
      for board in configuration.engine.boards { ports[board.name] = board.whereToLook }
      var report = StatusReport(
        snapshot, boardInfos: infos, boardLinks: links, boardProblems: problems, boardPorts: ports,
        boardDevices: devices, history: history.health)
      for source in sources { report.sources = (report.sources ?? []) + (await source.health()) }
      if let added = await addOns?.sources(), !added.isEmpty { report.sources = (report.sources ?? []) + added }
      return .status(report)
    case .history(let missedOnly, let limit):
      // Never ok while records wait in memory or were lost: the calls read, and what is missing.
      return await history.calls(missedOnly: missedOnly, limit: limit).response
    case .pair(let device):
      guard let addOns else { return await DaemonAddOnHooks().pair(device) }
      return await addOns.pair(device)
    case .reload:
      do {
        try await reloader.reload(trigger: "\(source):\(lineNumber)")
        return .ok
      } catch {
        return .failure("reload: \(error)")
      }
    }
  }

  /// The answer for what a request did; a call refused because too many ring is a failure. A refusal is
  /// not logged here, one line each: the engine sums them per source and minute (`calls_refused`), and the
  /// daemon logs that.
  func answer(_ outcome: RequestOutcome, _ source: String, _ lineNumber: Int) -> ControlResponse {
    if outcome.result == .ignored { logger.info("push \(source):\(lineNumber) \(outcome.text)") }
    guard outcome.result != .refused else {
      return .failure("\(source):\(lineNumber): \(outcome.text)")
    }
    return .outcome(outcome)
  }
}
