import CallAlertControl
import CallAlertEngine
internal import Metrics
internal import Prometheus
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The daemon's metrics for `GET /metrics`: swift-metrics counters, gauges and timers made by
/// swift-prometheus's factory over a registry of this API's own (not the process-wide one, so two daemons in
/// one test process count apart), written as Prometheus text.
///
/// - `callalert_calls_rung_total`, `callalert_calls_suppressed_total`, `callalert_calls_missed_total`: from
///   the engine's events.
/// - `callalert_ring_duration_seconds`: from a call's `ringing` to its `stopped` (histogram).
/// - `callalert_boards_connected`, `callalert_boards_configured`: read from the status at each scrape.
/// - `callalert_link_retransmissions_total`, `callalert_link_resyncs_total`,
///   `callalert_link_decode_errors_total` (by `board`): the boards' link counters, read at each scrape.
/// - `callalert_http_call_to_ringing_seconds`: from an HTTP request or webhook that brings a call to the
///   daemon's answer that it rings (the engine decided and the PLAY is queued for the board).
/// - `callalert_call_to_play_seconds` (by `board`): from a call reaching the daemon, whatever its source
///   (socket, stdin, HTTP, SIP, MQTT), to the board's acknowledgement of its PLAY (histogram); recorded
///   through ``recordCallToPlay(board:_:)``, which the daemon's HTTP add-on wires to the board drivers.
/// - `callalert_http_requests_total{route,status}`: the API's own answers.
public final class CallMetrics: Sendable {
  /// The registry `/metrics` writes.
  let registry: PrometheusCollectorRegistry
  private let factory: PrometheusMetricsFactory
  private let rung: Metrics.Counter
  private let suppressed: Metrics.Counter
  private let missed: Metrics.Counter
  private let ringDuration: Metrics.Timer
  private let callToRinging: Metrics.Timer
  private let boardsConnected: Metrics.Gauge
  private let boardsConfigured: Metrics.Gauge
  /// When each ringing call began to ring, for its duration; bounded (the engine rings a few at a time).
  private let ringingSince = Mutex<[String: Date]>([:])
  /// The link counters last seen per board, for the increments since.
  private let lastLinks = Mutex<[String: HTTPLinkCounters]>([:])

  /// Creates metrics over a registry of their own.
  public init() {
    registry = PrometheusCollectorRegistry()
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.durationHistogramBuckets["callalert_ring_duration_seconds"] = [
      .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(20), .seconds(30),
      .seconds(60),
    ]
    factory.durationHistogramBuckets["callalert_http_call_to_ringing_seconds"] = [
      .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
      .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
      .seconds(1),
    ]
    factory.durationHistogramBuckets["callalert_call_to_play_seconds"] =
      factory.durationHistogramBuckets["callalert_http_call_to_ringing_seconds"]
    self.factory = factory
    rung = Metrics.Counter(label: "callalert_calls_rung_total", factory: factory)
    suppressed = Metrics.Counter(label: "callalert_calls_suppressed_total", factory: factory)
    missed = Metrics.Counter(label: "callalert_calls_missed_total", factory: factory)
    ringDuration = Metrics.Timer(label: "callalert_ring_duration_seconds", factory: factory)
    callToRinging = Metrics.Timer(label: "callalert_http_call_to_ringing_seconds", factory: factory)
    boardsConnected = Metrics.Gauge(label: "callalert_boards_connected", factory: factory)
    boardsConfigured = Metrics.Gauge(label: "callalert_boards_configured", factory: factory)
  }

  /// Counts an engine event.
  public func record(_ event: EngineEvent, at date: Date) {
    switch event {
    case .ringing(let call, _, _, _, _):
      // A call waiting for a board is announced again when one connects: counted once.
      let isNew = ringingSince.withLock { since in
        if since.count >= 1_024 { since.removeAll() }
        guard since[call.id] == nil else { return false }
        since[call.id] = date
        return true
      }
      if isNew { rung.increment() }
    case .stopped(let id, _):
      if let start = ringingSince.withLock({ $0.removeValue(forKey: id) }) {
        ringDuration.recordNanoseconds(Int64(max(0, date.timeIntervalSince(start)) * 1e9))
      }
    case .suppressed: suppressed.increment()
    case .missed: missed.increment()
    default: break
    }
  }

  /// Records how long a call took from its request to the answer that it rings.
  public func recordCallToRinging(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    callToRinging.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }

  /// Records how long a call took from reaching the daemon to `board`'s acknowledgement of its PLAY.
  public func recordCallToPlay(board: String, _ latency: Duration) {
    let (seconds, attoseconds) = latency.components
    Metrics.Timer(label: "callalert_call_to_play_seconds", dimensions: [("board", board)], factory: factory)
      .recordNanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
  }

  /// Counts one answer of the API.
  func recordRequest(route: String, status: Int) {
    Metrics.Counter(
      label: "callalert_http_requests_total", dimensions: [("route", route), ("status", String(status))],
      factory: factory
    ).increment()
  }

  /// Adds what each board's link counted since the last scrape to `callalert_link_retransmissions_total`,
  /// `callalert_link_resyncs_total` and `callalert_link_decode_errors_total` (by `board`). A value below the
  /// last one is a new connection counting from zero again: all of it is new.
  public func update(links: [HTTPLinkCounters]) {
    for counters in links {
      let last = lastLinks.withLock { last in
        defer { last[counters.board] = counters }
        return last[counters.board]
      }
      func delta(_ now: UInt64, _ before: UInt64?) -> Int64 {
        Int64(clamping: now >= (before ?? 0) ? now - (before ?? 0) : now)
      }
      let board = [("board", counters.board)]
      for (label, now, before) in [
        ("callalert_link_retransmissions_total", counters.retransmissions, last?.retransmissions),
        ("callalert_link_resyncs_total", counters.resyncs, last?.resyncs),
        ("callalert_link_decode_errors_total", counters.decodeErrors, last?.decodeErrors),
      ] {
        Metrics.Counter(label: label, dimensions: board, factory: factory).increment(by: delta(now, before))
      }
    }
  }

  /// Sets the boards' gauges, and each call source's, from a status.
  ///
  /// `callalert_source_up{name,kind}` is 1 while a source is connected or registered (a FRITZ!Box or AMI
  /// connection, a SIP account's registration, the MQTT broker) and 0 while it connects or fails; the status's
  /// `sources` say why. `callalert_source_failures{name,kind}` is how many attempts failed in a row.
  public func update(from status: StatusReport) {
    boardsConnected.record(status.boards.filter(\.connected).count)
    boardsConfigured.record(status.boards.count)
    for source in status.sources ?? [] {
      let dimensions = [("name", source.name), ("kind", source.kind)]
      let up = source.state == "connected" || source.state == "registered"
      Metrics.Gauge(label: "callalert_source_up", dimensions: dimensions, factory: factory).record(up ? 1 : 0)
      Metrics.Gauge(label: "callalert_source_failures", dimensions: dimensions, factory: factory)
        .record(source.failures)
    }
  }

  /// The Prometheus text of every metric.
  public func text() -> String { registry.emitToString() }
}
