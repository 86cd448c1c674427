import CallAlertTestSupport
import Foundation
import Testing

/// docs/PHONE.md's Home Assistant route: the automation on the companion app's `phone_state` sensor publishes
/// to the call topics; the exact messages it sends (the document's block) ring and stop a board through a real
/// mosquitto.
@Suite("Home Assistant's phone state against mosquitto", .serialized, .timeLimit(.minutes(2)))
struct HomeAssistantPhoneStateTests {
  @Test func theAutomationsMessagesRingAndStopTheBoard() async throws {
    let block = try #require(
      codeBlocks(try documentText("PHONE.md"), language: "text").first { $0.heading == "What the automation sends" })
    let messages = block.text.split(separator: "\n").map { line in
      let space = line.firstIndex(of: " ") ?? line.endIndex
      return (topic: String(line[..<space]), payload: String(line[space...].dropFirst()))
    }
    try #require(messages.count == 4)
    let broker = try await Broker()
    try await broker.start()
    let host = try await Host.start("upstairs", broker: broker)
    try await BrokerEndToEndTests.online(["upstairs"], broker: broker)
    try await BrokerEndToEndTests.boardConnected("upstairs", broker: broker)

    // ringing, then offhook: answered.
    try await broker.publish(messages[0].topic, messages[0].payload)
    let ringing = await host.events.first(within: 10) { $0.isEvent("ringing", call: "pixel7-1764230400") }
    #expect(ringing?.contains(#""boards":["desk"]"#) == true, "\(host.events.all)")
    try await broker.publish(messages[1].topic, messages[1].payload)
    let answered = await host.events.first(within: 10) { $0.isEvent("stopped", call: "pixel7-1764230400") }
    #expect(answered?.contains(#""reason":"answered""#) == true, "\(host.events.all)")

    // ringing, then idle: the caller gave up.
    try await broker.publish(messages[2].topic, messages[2].payload)
    #expect(await host.events.first(within: 10) { $0.isEvent("ringing", call: "pixel7-1764230460") } != nil)
    try await broker.publish(messages[3].topic, messages[3].payload)
    let ended = await host.events.first(within: 10) { $0.isEvent("stopped", call: "pixel7-1764230460") }
    #expect(ended?.contains(#""reason":"hangup""#) == true, "\(host.events.all)")

    try await host.stop()
    await broker.stop()
  }
}
