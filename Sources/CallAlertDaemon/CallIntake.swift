import CallAlertControl
import CallAlertEngine
import CallAlertValues
import Logging

/// Where every source's calls enter the daemon: the control socket, standard input and the HTTP API (through
/// ``ControlHandler``), the SIP accounts, the phone systems and MQTT all hand what they received to
/// ``submit(_:from:)`` with the identity of the edge that received it, which the call budget counts by
/// (``CallSource``). What they share is done here once: the engine decides, an input it ignored for a reason
/// other than the budget is logged under the source's name (refusals are summed per source and minute by the
/// engine and logged so, `calls_refused`), and the history's back-pressure is waited for, after the ring.
public struct CallIntake<C: Clock>: Sendable where C.Duration == Duration {
  let service: AlertService<C>
  let logger: Logger

  /// An intake into `service`.
  public init(service: AlertService<C>, logger: Logger) {
    self.service = service
    self.logger = logger
  }

  /// Hands `input` from `source` to the engine; its events, for an answer to the sender.
  @discardableResult
  public func submit(_ input: EngineInput, from source: CallSource) async -> [EngineEvent] {
    let events = await service.submit(input, from: source)
    for event in events {
      if case .ignored(let id, let reason) = event, reason != .tooManyCalls {
        logger.info("\(source): the engine ignored \(id): \(reason.rawValue)")
      }
    }
    await service.roomForRecords()  // the answer waits for the history, not the ring
    return events
  }

  /// Hands a push from a control source (`socket#3`, `<stdin>`, `http`, a webhook's provider) to the engine;
  /// calls and hangups without an id are matched to their calls there (``AlertService/submit(_:source:)``).
  public func submit(_ push: PushNotification, source: String) async -> RequestOutcome {
    let outcome = await service.submit(push, source: source)
    await service.roomForRecords()
    return outcome
  }
}
