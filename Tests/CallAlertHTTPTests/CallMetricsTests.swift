import CallAlertControl
import CallAlertHTTP
import Foundation
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

  /// Each call source's health is a gauge: up (1) while connected or registered, 0 otherwise, and its failures
  /// in a row (a SIP account's registration health in /metrics; the same for bridges and MQTT).
  @Test func everySourceIsAGaugeOfItsHealth() throws {
    let json = #"""
      {"boards":[{"connected":true,"firmware":"0.1.0","link":"connected","name":"board","serial":"VB-board",
      "table_version":0}],"calls":[],"do_not_disturb":{"active":false,"mode":"off","silent":false},"missed":[],
      "sources":[{"address":"127.0.0.1:9","failures":3,"kind":"fritzbox","name":"box","state":"failing"},
      {"address":"pbx.example:5060","failures":0,"kind":"sip","name":"desk-ext","state":"connected"}]}
      """#
    let status = try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
    let metrics = CallMetrics()
    metrics.update(from: status)
    let lines = metrics.text().split(separator: "\n").map(String.init)
    #expect(lines.contains(#"callalert_source_up{name="box",kind="fritzbox"} 0.0"#), "\(lines)")
    #expect(lines.contains(#"callalert_source_failures{name="box",kind="fritzbox"} 3.0"#))
    #expect(lines.contains(#"callalert_source_up{name="desk-ext",kind="sip"} 1.0"#))
    #expect(lines.contains(#"callalert_boards_connected 1.0"#))
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
