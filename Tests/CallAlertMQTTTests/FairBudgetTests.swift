import CallAlertDaemon
import CallAlertEngine
import CallAlertTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Against a real broker: calls published over MQTT fill MQTT's share of the call budget
/// and more are refused, while a call on the local control socket still rings. The latencies are measured and
/// printed, not asserted: the figure the issue asks for (within 50 ms of the quiet baseline) depends on the
/// machine, and the test must not.
@Suite("The fair call budget against mosquitto", .serialized, .timeLimit(.minutes(2)))
struct FairBudgetTests {
  static let share = AlertEngine.maximumActiveCallsPerSource

  /// Publishes calls `prefix<first>`..`prefix<first+count-1>`, each on its own topic, `parallel` publishers at
  /// a time (mosquitto_pub, each an independent client), from one shell; returns the shell.
  static func flood(
    _ broker: Broker, prefix: String, from first: Int = 0, count: Int, parallel: Int = 20
  ) async throws
    -> SpawnedProcess
  {
    let publish =
      #"/usr/bin/mosquitto_pub -h 127.0.0.1 -p \#(broker.port) -q 1 -t "callalert/calls/\#(prefix)$i" -m "{\"type\":\"call\",\"id\":\"\#(prefix)$i\",\"caller\":\"+4930123456\"}""#
    let script = """
      i=\(first); end=\(first + count)
      while [ $i -lt $end ]; do
        \(publish) &
        i=$((i + 1))
        [ $(((i - \(first)) % \(parallel))) -eq 0 ] && wait
      done
      wait
      """
    let shell = try await SpawnedProcess("/bin/sh", ["-c", script])
    Task { for await _ in shell.lines {} }
    return shell
  }

  /// A call on the control socket: the time from the request to its answer, which comes once the engine
  /// decided it rings (the PLAY is on its way to the board).
  static func localCall(_ host: Host, _ id: String, level: String = "active") async throws -> (String, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let answer = try await host.request(#"{"type":"call","id":"\#(id)","level":"\#(level)"}"#)
    return (answer, clock.now - start)
  }

  static func median(_ durations: [Duration]) -> Duration { durations.sorted()[durations.count / 2] }

  static func ms(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.2f ms", Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
  }

  @Test func aFloodOnMQTTLeavesRoomForALocalCall() async throws {
    let broker = try await Broker()
    try await broker.start()
    let host = try await Host.start("fair", broker: broker, cap: "30s")
    try await BrokerEndToEndTests.online(["fair"], broker: broker)
    try await BrokerEndToEndTests.boardConnected("fair", broker: broker)

    // The quiet baseline: local calls, each hung up before the next.
    var quiet: [Duration] = []
    for index in 0..<7 {
      let (answer, latency) = try await Self.localCall(host, "quiet\(index)")
      #expect(answer.contains(#""outcome":"ringing""#), "\(answer)")
      quiet.append(latency)
      _ = try await host.request(#"{"type":"hangup","id":"quiet\#(index)"}"#)
    }

    // MQTT fills its share, and more: every published call either rings or is refused, none lost.
    let count = Self.share + 8
    let publisher = try await Self.flood(broker, prefix: "f", count: count)
    #expect(await publisher.exit(within: 30)?.exitCode == 0, "mosquitto_pub failed")
    for index in 0..<count {
      let seen = await host.events.first(within: 20) { line in
        line.contains(#""id":"f\#(index)""#)
          && (line.contains(#""event":"ringing""#) || line.contains("too-many-calls"))
      }
      #expect(seen != nil, "f\(index) was neither rung nor refused: \(host.events.all.suffix(20))")
    }
    let rang = host.events.count { $0.contains(#""event":"ringing""#) && $0.contains(#""id":"f"#) }
    let refused = host.events.count { $0.contains(#""event":"ignored""#) && $0.contains("too-many-calls") }
    #expect(rang == Self.share && refused == count - Self.share, "rang \(rang), refused \(refused)")
    // The first refusal is reported at once, summed with the next ones a minute later.
    let summary = await host.events.first(within: 10) { $0.contains(#""event":"calls_refused""#) }
    #expect(
      summary?.contains(#""source":"mqtt""#) == true && summary?.contains(#""count":1"#) == true, "\(summary ?? "none")"
    )

    // While MQTT's share is full and more keeps coming, local calls ring (and a critical one too).
    let more = try await Self.flood(broker, prefix: "g", count: 200)
    let isFlood: @Sendable (String) -> Bool = { $0.contains(#""id":"g"#) && $0.contains("too-many-calls") }
    // Measured once the flood reaches the daemon.
    #expect(await host.events.first(within: 20, where: isFlood) != nil, "the second flood never arrived")
    let floodBefore = host.events.count(where: isFlood)
    var flooded: [Duration] = []
    for index in 0..<7 {
      let (answer, latency) = try await Self.localCall(host, "local\(index)", level: index == 0 ? "critical" : "active")
      #expect(answer.contains(#""outcome":"ringing""#), "\(answer)")
      flooded.append(latency)
      _ = try await host.request(#"{"type":"hangup","id":"local\#(index)"}"#)
    }
    let floodDuring = host.events.count(where: isFlood) - floodBefore
    #expect(await more.exit(within: 60)?.exitCode == 0, "mosquitto_pub failed")
    print(
      "fair budget: local call -> ringing answer, median of 7: quiet \(Self.ms(Self.median(quiet))), "
        + "MQTT flooded \(Self.ms(Self.median(flooded))) (max \(Self.ms(flooded.max()!))); "
        + "MQTT calls refused during the measure: \(floodDuring)")

    // The refusal is in the history, as one row for the source, not a missed call.
    let history = try await host.request(#"{"type":"history","limit":200}"#)
    #expect(history.contains(#""id":"refused:mqtt:"#) && history.contains(#""outcome":"refused""#), "\(history)")
    let missed = try await host.request(#"{"type":"history","missed":true,"limit":200}"#)
    #expect(!missed.contains("refused:mqtt:"), "\(missed)")

    try await host.stop()
    await broker.stop()
  }
}
