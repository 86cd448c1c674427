import CallAlertDaemon
import CallAlertSimulation
import CallAlertTestSupport
import CallAlertVirtualBoard
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Against a real broker: Debian's mosquitto on a free loopback port, mosquitto_pub and
/// mosquitto_sub as independent clients, and two hosts' daemons (own sockets, histories, virtual boards).
@Suite("MQTT against mosquitto", .serialized, .timeLimit(.minutes(2)))
struct BrokerEndToEndTests {
  /// Waits until every node's availability is `online` on the broker (the daemons connected).
  static func online(_ nodes: [String], broker: Broker) async throws {
    let watcher = try await broker.subscribe("callalert/hosts/+/availability", seconds: 30)
    defer { watcher.kill(SIGKILL) }
    let lines = LineLog(watcher.lines)
    for node in nodes {
      let line = await lines.first(within: 20) { $0 == "callalert/hosts/\(node)/availability online" }
      #expect(line != nil, "\(node) never came online on the broker")
    }
  }

  /// Waits until `node`'s board `board` says it is connected (its retained state on the broker). A call that
  /// arrives before a board connects rings at once with no board, then again on the board when it comes.
  static func boardConnected(_ node: String, _ board: String = "desk", broker: Broker) async throws {
    let state = try await broker.subscribe("callalert/hosts/\(node)/boards/\(board)/state", seconds: 30)
    defer { state.kill(SIGKILL) }
    let line = await LineLog(state.lines).first(within: 20) { $0.contains(#""connected":true"#) }
    #expect(line != nil, "\(node)'s \(board) never said it was connected")
  }

  @Test func aCallPublishedOnceRingsEveryHostAndARedeliveryNeverRingsTwice() async throws {
    let broker = try await Broker()
    try await broker.start()
    let upstairs = try await Host.start("upstairs", broker: broker)
    let downstairs = try await Host.start("downstairs", broker: broker)
    try await Self.online(["upstairs", "downstairs"], broker: broker)
    // Boards first: this test counts rings, and a board that connects after the call adds one.
    try await Self.boardConnected("upstairs", broker: broker)
    try await Self.boardConnected("downstairs", broker: broker)

    let message = callMessage("c1")
    try await broker.publish("callalert/calls/c1", message)
    for host in [upstairs, downstairs] {
      let ringing = await host.events.first(within: 10) { $0.isEvent("ringing", call: "c1") }
      #expect(ringing?.contains(#""boards":["desk"]"#) == true, "\(host.node): \(host.events.all)")
    }
    // The same message again (a publisher's QoS 1 retry), then the hangup: messages on one topic keep their
    // order, so once the hangup is seen the duplicate was handled before it.
    try await broker.publish("callalert/calls/c1", message)
    try await broker.publish("callalert/calls/c1", #"{"type":"hangup","id":"c1"}"#)
    for host in [upstairs, downstairs] {
      let stopped = await host.events.first(within: 10) { $0.isEvent("stopped", call: "c1") }
      #expect(stopped?.contains(#""reason":"hangup""#) == true, "\(host.node): \(host.events.all)")
      #expect(host.events.count { $0.isEvent("ringing", call: "c1") } == 1, "\(host.node): \(host.events.all)")
      #expect(!host.events.all.contains { $0.contains(#""reason":"duplicate-call""#) }, "the engine never saw it twice")
    }
    // Each host's status names the broker as a source of kind mqtt, connected.
    let status = try await upstairs.request(#"{"type":"status"}"#)
    #expect(status.contains(#""kind":"mqtt""#) && status.contains(#""state":"connected""#), "\(status)")

    try await upstairs.stop()
    try await downstairs.stop()
    await broker.stop()
  }

  /// MQTT.md's mosquitto_pub example, run as a user pastes it (only `-h broker` pointed at the test's broker):
  /// with its fixed `sent_at` in the past it was "too late" and never rang.
  @Test func theDocumentedExampleRingsAndHangsUpAsPasted() async throws {
    let markdown = try documentText("MQTT.md")
    let block = try #require(codeBlocks(markdown, language: "sh").first { $0.heading == "Calls in" })
    let broker = try await Broker()
    try await broker.start()
    let host = try await Host.start("upstairs", broker: broker)
    try await Self.online(["upstairs"], broker: broker)
    try await Self.boardConnected("upstairs", broker: broker)
    let lines = block.text.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
    #expect(lines.count == 2)
    for (index, line) in lines.enumerated() {
      let command = line.replacingOccurrences(of: "-h broker", with: "-h 127.0.0.1 -p \(broker.port)")
      let shell = try await SpawnedProcess("/bin/sh", ["-c", command])
      Task { for await _ in shell.lines {} }
      #expect(await shell.exit(within: 10)?.exitCode == 0, "\(command)")
      let event = index == 0 ? "ringing" : "stopped"
      let seen = await host.events.first(within: 10) { $0.isEvent(event, call: "c1") }
      #expect(seen != nil, "no \(event) after \(command): \(host.events.all)")
    }
    #expect(!host.events.all.contains { $0.contains("too-late") }, "\(host.events.all)")
    try await host.stop()
    await broker.stop()
  }

  @Test func anAcknowledgementOnOneHostClearsTheMissedCallOnBoth() async throws {
    let broker = try await Broker()
    try await broker.start()
    let upstairs = try await Host.start("upstairs", broker: broker, cap: "2s")
    let downstairs = try await Host.start("downstairs", broker: broker, cap: "2s")
    try await Self.online(["upstairs", "downstairs"], broker: broker)
    let missedTopic = try await broker.subscribe("callalert/missed/#", seconds: 60)
    defer { missedTopic.kill(SIGKILL) }
    let missedLines = LineLog(missedTopic.lines)

    try await broker.publish("callalert/calls/c2", callMessage("c2"))
    for host in [upstairs, downstairs] {
      let missed = await host.events.first(within: 10) { $0.isEvent("missed", call: "c2") }
      #expect(missed != nil, "\(host.node): \(host.events.all)")
    }
    // Shared: the missed call is retained on the broker by id.
    #expect(await missedLines.first(within: 10) { $0.hasPrefix("callalert/missed/c2 {") } != nil)

    // Acknowledged on upstairs' control socket: downstairs clears it too, and the retained copy is deleted.
    _ = try await upstairs.request(#"{"type":"ack"}"#)
    for host in [upstairs, downstairs] {
      let cleared = await host.events.first(within: 10) { $0.contains(#""event":"missed_acknowledged""#) }
      #expect(cleared != nil, "\(host.node): \(host.events.all)")
      let status = try await host.request(#"{"type":"status"}"#)
      #expect(status.contains(#""missed":[]"#), "\(host.node): \(status)")
    }
    // mosquitto_sub -v shows an empty payload as "(null)".
    #expect(await missedLines.first(within: 10) { $0 == "callalert/missed/c2 (null)" } != nil, "\(missedLines.all)")

    try await upstairs.stop()
    try await downstairs.stop()
    await broker.stop()
  }

  /// One missed call acknowledged alone on one host (the page's button beside it): the other host clears
  /// that one and keeps the other.
  @Test func oneMissedCallAcknowledgedAloneOnOneHostLeavesTheOtherOnBoth() async throws {
    let broker = try await Broker()
    try await broker.start()
    let upstairs = try await Host.start("upstairs", broker: broker, cap: "2s")
    let downstairs = try await Host.start("downstairs", broker: broker, cap: "2s")
    try await Self.online(["upstairs", "downstairs"], broker: broker)
    for id in ["c4", "c5"] {
      try await broker.publish("callalert/calls/\(id)", callMessage(id))
      for host in [upstairs, downstairs] {
        let missed = await host.events.first(within: 10) { $0.isEvent("missed", call: id) }
        #expect(missed != nil, "\(host.node): \(host.events.all)")
      }
    }
    let answer = try await upstairs.request(#"{"type":"ack","id":"c4"}"#)
    #expect(answer.contains(#""outcome":"acknowledged""#), "\(answer)")
    for host in [upstairs, downstairs] {
      let cleared = await host.events.first(within: 10) { $0.isEvent("missed_call_acknowledged", call: "c4") }
      #expect(cleared != nil, "\(host.node): \(host.events.all)")
      let status = try await host.request(#"{"type":"status"}"#)
      #expect(status.contains(#""id":"c5""#) && !status.contains(#""id":"c4""#), "\(host.node): \(status)")
    }
    #expect(!downstairs.events.all.contains { $0.contains(#""event":"missed_acknowledged""#) }, "not all of them")
    try await upstairs.stop()
    try await downstairs.stop()
    await broker.stop()
  }

  @Test func theBrokerRestartedMidCallTheCallRingsWithinItsCapAndOnce() async throws {
    let broker = try await Broker()
    try await broker.start()
    let host = try await Host.start("upstairs", broker: broker, cap: "20s")
    try await Self.online(["upstairs"], broker: broker)

    // Retained, so that the restarted broker (persistent) hands it out again on resubscription.
    let message = callMessage("c3", ago: 3)
    try await broker.publish("callalert/calls/c3", message, retain: true)
    let ringing = try #require(await host.events.first(within: 10) { $0.isEvent("ringing", call: "c3") })
    // The cap counts from sent_at: 3 s had passed, so at most 17 s remain.
    let capMs = ringing.firstMatch(of: /"cap_ms":(\d+)/).map { Int($0.1) ?? 0 } ?? 0
    #expect(capMs > 0 && capMs <= 17_000, "\(ringing)")

    await broker.stop()
    try await broker.start()
    // The restarted broker kept the retained call (its persistent store), so the host gets it again on
    // resubscribing: the redelivery the deduplication must absorb.
    let retained = try await broker.subscribe("callalert/calls/c3", seconds: 10)
    #expect(await LineLog(retained.lines).first(within: 10) { $0.hasPrefix("callalert/calls/c3 {") } != nil)
    retained.kill(SIGKILL)
    try await Self.online(["upstairs"], broker: broker)
    // The publisher retries too (its PUBACK was lost with the broker).
    try await broker.publish("callalert/calls/c3", message, retain: true)
    try await broker.publish("callalert/calls/c3", #"{"type":"hangup","id":"c3"}"#, retain: true)
    let stopped = await host.events.first(within: 15) { $0.isEvent("stopped", call: "c3") }
    #expect(stopped?.contains(#""reason":"hangup""#) == true, "\(host.events.all)")
    #expect(host.events.count { $0.isEvent("ringing", call: "c3") } == 1, "\(host.events.all)")

    try await host.stop()
    await broker.stop()
  }

  @Test func aKilledDaemonsLastWillMarksItOffline() async throws {
    let broker = try await Broker()
    try await broker.start()
    let directory = try Host.directory("killed")
    let config = directory + "/config.yaml"
    try Host.config(node: "killed", directory: directory, port: broker.port, boards: ["desk"], cap: "20s").write(
      toFile: config, atomically: true, encoding: .utf8)
    let watcher = try await broker.subscribe("callalert/hosts/killed/availability", seconds: 60)
    defer { watcher.kill(SIGKILL) }
    let lines = LineLog(watcher.lines)
    let daemon = try await SpawnedProcess(try DaemonProcess.binary(), ["run", "--simulate", "--config", config])
    Task { for await _ in daemon.lines {} }
    #expect(await lines.first(within: 20) { $0.hasSuffix(" online") } != nil)
    daemon.kill(SIGKILL)
    _ = await daemon.exit(within: 10)
    // The broker publishes the Last Will once 1.5 keepalives (7.5 s) pass without a word.
    #expect(await lines.first(within: 30) { $0.hasSuffix(" offline") } != nil, "\(lines.all)")
    await broker.stop()
  }

  @Test func discoveryIsAnnouncedAndABoardLeavingTheConfigIsRemoved() async throws {
    let broker = try await Broker()
    try await broker.start()
    let discovery = try await broker.subscribe("homeassistant/#", seconds: 60)
    defer { discovery.kill(SIGKILL) }
    let lines = LineLog(discovery.lines)
    let first = try await Host.start("upstairs", broker: broker, boards: ["desk", "bed"])
    let bed = await lines.first(within: 20) {
      $0.hasPrefix("homeassistant/siren/callalert_upstairs/bed_siren/config {")
    }
    #expect(bed?.contains(#""available_tones":["#) == true)
    // Every config of the bed is on the broker before the host stops: stopped as soon as the first came, it
    // once had not yet published the last, which then had nothing to be removed.
    for object in ["bed_button", "bed_ringing"] {
      let announced = await lines.first(within: 20) {
        $0.hasPrefix("homeassistant/") && $0.contains("/callalert_upstairs/\(object)/config {")
      }
      #expect(announced != nil, "\(object) was not announced: \(lines.all.suffix(5))")
    }
    try await first.stop()
    let second = try await Host.start("upstairs", broker: broker, boards: ["desk"])
    for object in ["bed_siren", "bed_button", "bed_ringing"] {
      let removed = await lines.first(within: 20) {
        $0.hasPrefix("homeassistant/") && $0.hasSuffix("/callalert_upstairs/\(object)/config (null)")
      }
      #expect(removed != nil, "\(object) was not removed: \(lines.all.suffix(5))")
    }
    // Home Assistant restarting asks for the configs again.
    let before = lines.all.count
    try await broker.publish("homeassistant/status", "online", qos: 0)
    let again = await lines.first(within: 10, from: before) { $0.contains("/desk_siren/config {") }
    #expect(again != nil)
    try await second.stop()
    await broker.stop()
  }

  /// The host's status once `ready` holds, asked every 10 ms for up to 10 s (what it is waiting for comes
  /// through the broker, or from a connect that fails); the last answer when it never holds. A count of tries
  /// alone was a race once requests got fast: 200 of them took 20 ms.
  static func status(of host: Host, until ready: (String) -> Bool) async throws -> String {
    var status = ""
    let deadline = ContinuousClock.now.advanced(by: .seconds(10))
    while ContinuousClock.now < deadline {
      status = try await host.request(#"{"type":"status"}"#)
      if ready(status) { break }
      try await Task.sleep(for: .milliseconds(10))
    }
    return status
  }

  @Test func aDaemonStartedBeforeItsBrokerJoinsItWhenItComes() async throws {
    let broker = try await Broker()  // its port chosen, nothing listening yet
    let host = try await Host.start("early", broker: broker)
    let status = try await Self.status(of: host) { $0.contains(#""state":"failing""#) }
    #expect(status.contains(#""kind":"mqtt""#) && status.contains(#""state":"failing""#), "\(status)")
    try await broker.start()
    try await Self.online(["early"], broker: broker)
    try await broker.publish("callalert/calls/c4", callMessage("c4"))
    #expect(await host.events.first(within: 10) { $0.isEvent("ringing", call: "c4") } != nil, "\(host.events.all)")
    try await host.stop()
    await broker.stop()
  }

  @Test func homeAssistantRingsABoardAndSwitchesDoNotDisturbOnEveryHost() async throws {
    let broker = try await Broker()
    try await broker.start()
    let upstairs = try await Host.start("upstairs", broker: broker, boards: ["desk", "bed"])
    let downstairs = try await Host.start("downstairs", broker: broker)
    try await Self.online(["upstairs", "downstairs"], broker: broker)

    // The siren: one board rings the tone for the duration, and the test ring is no missed call.
    try await broker.publish(
      "callalert/hosts/upstairs/boards/bed/ring/set", #"{"state":"ON","tone":"UK","duration":1}"#)
    let ringing = await upstairs.events.first(within: 10) { $0.isEvent("ringing", call: "ha-bed-1") }
    #expect(ringing?.contains(#""boards":["bed"]"#) == true, "\(upstairs.events.all)")
    let stopped = await upstairs.events.first(within: 10) { $0.isEvent("stopped", call: "ha-bed-1") }
    #expect(stopped?.contains(#""reason":"answered""#) == true, "\(upstairs.events.all)")
    #expect(!upstairs.events.all.contains { $0.isEvent("missed", call: "ha-bed-1") })

    // The do-not-disturb switch of one host applies to both (share_dnd defaults to true).
    try await broker.publish("callalert/hosts/upstairs/set/dnd", "ON")
    for host in [upstairs, downstairs] {
      let status = try await Self.status(of: host) { $0.contains(#""override":"on""#) }
      #expect(status.contains(#""override":"on""#), "\(host.node): \(status)")
    }
    try await upstairs.stop()
    try await downstairs.stop()
    await broker.stop()
  }

  @Test func aBoardsButtonIsAnEventForHomeAssistant() async throws {
    let broker = try await Broker()
    try await broker.start()
    let runners = Mutex<[String: VirtualBoardRunner<ContinuousClock>]>([:])
    let host = try await VirtualBoards.$created.withValue({ name, runner in runners.withLock { $0[name] = runner } }) {
      try await Host.start("upstairs", broker: broker, boards: ["desk"])
    }
    try await Self.online(["upstairs"], broker: broker)
    let watcher = try await broker.subscribe("callalert/hosts/upstairs/boards/+/button", seconds: 30)
    defer { watcher.kill(SIGKILL) }
    let lines = LineLog(watcher.lines)
    // The board is connected once its state says so (retained, so seen even if published before).
    let state = try await broker.subscribe("callalert/hosts/upstairs/boards/desk/state", seconds: 30)
    defer { state.kill(SIGKILL) }
    #expect(await LineLog(state.lines).first(within: 10) { $0.contains(#""connected":true"#) } != nil)
    let runner = try #require(runners.withLock { $0["desk"] })
    let topic = "callalert/hosts/upstairs/boards/desk/button "
    await runner.setButton(down: true)
    try await Task.sleep(for: .milliseconds(150))  // a person's short press, longer than the debounce
    await runner.setButton(down: false)
    let press = await lines.first(within: 10) { $0.hasPrefix(topic) }
    #expect(press == topic + #"{"event_type":"press"}"#)

    // A long press, on a ringing call: the board reports it once held 1 s (its clock is real time, so the
    // hold is real), still acknowledges the call, and is `long_press` for Home Assistant. Released only once
    // seen, so the hold is as long as it takes and no longer.
    try await broker.publish("callalert/calls/c9", callMessage("c9"))
    #expect(await host.events.first(within: 10) { $0.isEvent("ringing", call: "c9") } != nil, "\(host.events.all)")
    await runner.setButton(down: true)
    let long = await lines.first(within: 10) { $0.hasPrefix(topic) && !$0.hasSuffix(#""press"}"#) }
    await runner.setButton(down: false)
    #expect(long == topic + #"{"event_type":"long_press"}"#, "\(lines.all)")
    let stopped = await host.events.first(within: 10) { $0.isEvent("stopped", call: "c9") }
    #expect(stopped?.contains(#""reason":"acknowledged""#) == true, "\(host.events.all)")

    // And a short press after it is a press again. A person lets go for longer than the debounce first: a
    // release shorter than that is contact bounce, and would only continue the hold.
    try await Task.sleep(for: .milliseconds(100))
    let seen = lines.all.count
    await runner.setButton(down: true)
    try await Task.sleep(for: .milliseconds(150))
    await runner.setButton(down: false)
    let again = await lines.first(within: 10, from: seen) { $0.hasPrefix(topic) }
    #expect(again == topic + #"{"event_type":"press"}"#, "\(lines.all)")

    let events = lines.all.filter { $0.hasPrefix(topic) }.map { $0.dropFirst(topic.count) }
    let expected = [#"{"event_type":"press"}"#, #"{"event_type":"long_press"}"#, #"{"event_type":"press"}"#]
    #expect(events == expected.map { Substring($0) }, "\(lines.all)")
    try await host.stop()
    await broker.stop()
  }

  @Test func doNotDisturbSwitchedOnTheControlSocketReachesTheOtherHostAtOnce() async throws {
    let broker = try await Broker()
    try await broker.start()
    // A keepalive of a minute: the switch must not wait for the periodic comparison.
    let upstairs = try await Host.start("upstairs", broker: broker, keepalive: "60s")
    let downstairs = try await Host.start("downstairs", broker: broker, keepalive: "60s")
    try await Self.online(["upstairs", "downstairs"], broker: broker)
    _ = try await upstairs.request(#"{"type":"dnd","mode":"on"}"#)
    let deadline = ContinuousClock.now + .seconds(5)
    var status = ""
    while ContinuousClock.now < deadline, !status.contains(#""override":"on""#) {
      status = try await downstairs.request(#"{"type":"status"}"#)
    }
    #expect(status.contains(#""override":"on""#), "\(status)")
    try await upstairs.stop()
    try await downstairs.stop()
    await broker.stop()
  }
}
