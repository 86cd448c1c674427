import CallAlertHTTP
import Testing

/// The link counters become Prometheus counters that only rise, across a reconnect too.
@Suite("Call metrics")
struct CallMetricsTests {
  @Test func linkCountersRiseByWhatWasCountedSinceTheLastScrapeAndSurviveAReconnect() {
    let metrics = CallMetrics()
    func value(_ name: String) -> String? {
      metrics.text().split(separator: "\n").first { $0.hasPrefix(name + #"{board="desk"} "#) }.map {
        String($0.split(separator: " ").last!)
      }
    }
    metrics.update(links: [HTTPLinkCounters(board: "desk", retransmissions: 3, resyncs: 1, decodeErrors: 0)])
    metrics.update(links: [HTTPLinkCounters(board: "desk", retransmissions: 5, resyncs: 1, decodeErrors: 2)])
    #expect(value("callalert_link_retransmissions_total") == "5")
    // The daemon reconnected: its new connection counts from zero.
    metrics.update(links: [HTTPLinkCounters(board: "desk", retransmissions: 1, resyncs: 0, decodeErrors: 0)])
    #expect(value("callalert_link_retransmissions_total") == "6")
    #expect(value("callalert_link_resyncs_total") == "1")
    #expect(value("callalert_link_decode_errors_total") == "2")
  }
}
