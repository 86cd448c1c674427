import CallAlertMQTT
import CallAlertTestSupport
import Testing

/// The connection under a reader that lags: messages wait for it, on libmosquitto's thread and then at the
/// broker, and none is dropped. (The event stream kept the newest 4 096 and dropped the rest silently, after
/// libmosquitto had acknowledged them: a flood of calls lost thousands without a trace.)
@Suite("MQTT connection against mosquitto", .serialized, .timeLimit(.minutes(2)))
struct MQTTConnectionTests {
  @Test func aReaderThatLagsLosesNoMessage() async throws {
    // The broker keeps whatever waits for the reader (its default queue is 1 000 QoS 1 messages).
    let broker = try await Broker(settings: ["max_queued_messages 0"])
    try await broker.start()
    let reader = try MQTTConnection(.init(host: "127.0.0.1", port: broker.port, clientID: "lagging-reader"))
    try reader.start()
    var events = reader.events.makeAsyncIterator()
    #expect(await events.next() == .connected)
    try reader.subscribe("lag/#", qos: 1)
    // Subscribed once a probe comes back (SUBACK is not reported).
    let writer = try MQTTConnection(.init(host: "127.0.0.1", port: broker.port, clientID: "fast-writer"))
    try writer.start()
    var probes = 0
    var probed = false
    while !probed, probes < 100 {
      try writer.publish("lag/probe", "\(probes)", qos: 1, retain: false)
      probes += 1
      let seen = await answer(within: 0.1, { reader.waitingMessages }, until: { $0 > 0 })
      if seen > 0 {
        probed = true
        while reader.waitingMessages > 0 { _ = await events.next() }
      }
    }
    #expect(probed, "the subscription never took effect")

    let count = MQTTConnection.queuedMessages + 2_000
    for index in 0..<count { try writer.publish("lag/\(index)", "\(index)", qos: 1, retain: false) }
    // The reader takes nothing until its queue is full: the rest wait on libmosquitto's thread and the broker.
    let full = await answer(within: 30, { reader.waitingMessages }, until: { $0 == MQTTConnection.queuedMessages })
    #expect(full == MQTTConnection.queuedMessages)

    // Bounded: a lost message would leave the loop waiting, so the reader is closed (its stream ends) after 60 s.
    let watchdog = Task {
      try? await Task.sleep(for: .seconds(60))
      reader.close()
    }
    var seen = Set<String>()
    while seen.count < count, let event = await events.next() {
      guard case .message(let message) = event, message.topic != "lag/probe" else { continue }
      seen.insert(message.topic)
    }
    watchdog.cancel()
    #expect(seen.count == count, "\(seen.count) of \(count) messages came")
    writer.close()
    reader.close()
    await broker.stop()
  }

  /// A connection that handed messages to its reader is closed and freed cleanly, whether or not it still held
  /// some. (Its first room for messages was a libdispatch semaphore, which traps when freed below its starting
  /// value: the daemon's test process died of SIGILL when an MQTT host stopped.)
  @Test func aConnectionThatHandedMessagesOverIsFreedCleanly() async throws {
    let broker = try await Broker()
    try await broker.start()
    for keptWaiting in [0, 3] {
      var connection: MQTTConnection? = try MQTTConnection(
        .init(host: "127.0.0.1", port: broker.port, clientID: "freed-\(keptWaiting)"))
      try connection?.start()
      var events = connection!.events.makeAsyncIterator()
      #expect(await events.next() == .connected)
      try connection?.subscribe("freed/#", qos: 0)
      var taken = 0
      for attempt in 0..<100 where taken == 0 {
        try connection?.publish("freed/\(attempt)", "x", qos: 0, retain: false)
        let waiting = await answer(within: 0.1, { connection?.waitingMessages ?? 0 }, until: { $0 > 0 })
        if waiting > 0, case .message = await events.next() { taken += 1 }
      }
      #expect(taken == 1, "no message came back")
      for index in 0..<keptWaiting { try connection?.publish("freed/kept\(index)", "x", qos: 0, retain: false) }
      connection?.close()
      connection = nil  // freed here, its condition with it
    }
    await broker.stop()
  }

  /// After `close()` the library's client is freed: a call made later fails with the reason, and a second
  /// close does nothing (each used to reach the freed client). No broker is needed: nothing is started.
  @Test func callsAfterTheCloseFailInsteadOfReachingAFreedClient() throws {
    let connection = try MQTTConnection(.init(host: "127.0.0.1", port: 1, clientID: "closed-early"))
    connection.close()
    #expect(throws: MQTTError.self) { try connection.publish("closed/topic", "x", retain: false) }
    do {
      try connection.subscribe("closed/#")
      Issue.record("subscribing after the close succeeded")
    } catch {
      #expect(error.description.contains("the connection is closed"), "\(error)")
    }
    connection.close()
  }
}
