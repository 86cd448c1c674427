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

  /// Each board's call-to-PLAY times land in its own histogram, in the buckets of the HTTP call-to-ringing one.
  @Test func callToPlayIsAHistogramPerBoard() {
    let metrics = CallMetrics()
    metrics.recordCallToPlay(board: "desk", .milliseconds(3))
    metrics.recordCallToPlay(board: "desk", .milliseconds(30))
    metrics.recordCallToPlay(board: "bed", .microseconds(100))
    let lines = metrics.text().split(separator: "\n")
    #expect(lines.contains(#"callalert_call_to_play_seconds_count{board="desk"} 2"#))
    #expect(lines.contains(#"callalert_call_to_play_seconds_count{board="bed"} 1"#))
    #expect(lines.contains(#"callalert_call_to_play_seconds_bucket{board="desk",le="0.005"} 1"#))
  }
}
