import CallAlertControl
import CallAlertEngine
import CallAlertPatterns
import CallAlertValues
import Logging
import ServiceLifecycle

/// A source of calls that runs beside the daemon (a SIP account, a phone system, an MQTT broker): a named
/// service that hands what it receives to the ``CallIntake`` with its own ``CallSource``, and tells
/// `callalert status` how its connections are doing. The control socket, standard input and the HTTP API are
/// sources too, of control requests, which ``ControlHandler`` hands to the same intake.
///
/// Adding a source is its own type conforming here, made from a ``CallSourceContext``, and one line in
/// ``CallSources/all(in:)``.
public protocol CallSourceService: Service {
  /// Its connections' entries for `status` (one per account, phone system or broker).
  func health() async -> [StatusReport.Source]
}

/// What the daemon gives a source to make it.
public struct CallSourceContext<C: Clock>: Sendable where C.Duration == Duration {
  /// The configuration the daemon started with.
  public var configuration: DaemonConfiguration
  /// Where the source's calls go.
  public var intake: CallIntake<C>
  /// The engine's service, for what a source does besides calls (MQTT's do-not-disturb, acknowledgements,
  /// shared state).
  public var service: AlertService<C>
  /// The pattern table, for the names a source may offer (MQTT's Home Assistant siren tones).
  public var patterns: PatternBuild?
  /// The daemon's clock: retries, deadlines.
  public var clock: C
  /// The daemon's logger; the source logs under its own name.
  public var logger: Logger
  /// Tells the event stream a source's new state (registered, failing...), beside the engine's events.
  public var announce: @Sendable (StatusReport.Source) -> Void
}

/// Every source of calls the daemon knows: one line each.
enum CallSources {
  /// The sources `context`'s configuration asks for, in the order `status` lists them.
  static func all<C: Clock<Duration>>(in context: CallSourceContext<C>) -> [any CallSourceService] {
    let made: [(any CallSourceService)?] = [
      BridgeSourcesService(context),
      MQTTService(context),
      SIPService(context),
    ]
    return made.compactMap { $0 }
  }
}
