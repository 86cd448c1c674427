import CallAlertTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// MQTT.md's "Who may ring", run as written: mosquitto with the document's ACL file and a user per role. A
/// stranger (a broker user the ACL does not name) neither rings, nor acknowledges, nor switches do-not-disturb,
/// nor reads missed callers; the phone system's user rings, and the read-only user sees no caller.
@Suite("MQTT access control with mosquitto", .serialized, .timeLimit(.minutes(2)))
struct BrokerACLTests {
  static let passwords = [
    "upstairs": "pw-upstairs", "pbx": "pw-pbx", "homeassistant": "pw-ha", "viewer": "pw-viewer",
    "stranger": "pw-stranger",
  ]

  static func login(_ user: String) -> Broker.Login { (user, passwords[user]!) }

  @Test func onlyWhatTheACLAllowsRingsSilencesOrReads() async throws {
    let markdown = try documentText("MQTT.md")
    let acl = try #require(
      codeBlocks(markdown, language: "conf").first { $0.text.contains("user upstairs") && $0.heading == "Who may ring" }
    )
    let broker = try await Broker(users: Self.passwords, acl: acl.text)
    try await broker.start()
    let host = try await Host.start("upstairs", broker: broker, cap: "3s", login: Self.login("upstairs"))
    let state = try await broker.subscribe(
      "callalert/hosts/upstairs/boards/desk/state", seconds: 30, as: Self.login("viewer"))
    defer { state.kill(SIGKILL) }
    #expect(await LineLog(state.lines).first(within: 20) { $0.contains(#""connected":true"#) } != nil)

    // A stranger's call is dropped by the broker; the phone system's, published after it, rings. Messages of
    // one broker are handled in the order they came, so once the second rang, the first would have.
    try await broker.publish("callalert/calls/s1", #"{"id":"s1","caller":"+4930999"}"#, as: Self.login("stranger"))
    try await broker.publish("callalert/calls/p1", #"{"id":"p1","caller":"+4930123"}"#, as: Self.login("pbx"))
    #expect(await host.events.first(within: 10) { $0.isEvent("ringing", call: "p1") } != nil)
    #expect(!host.events.all.contains { $0.contains(#""id":"s1""#) }, "the stranger's call rang")

    // The stranger's acknowledgement and do-not-disturb change nothing; Home Assistant's silent switch, sent
    // after them, does.
    try await broker.publish("callalert/hosts/upstairs/set/ack", "PRESS", as: Self.login("stranger"))
    try await broker.publish("callalert/hosts/upstairs/set/dnd", "ON", as: Self.login("stranger"))
    try await broker.publish("callalert/hosts/upstairs/set/silent", "ON", as: Self.login("homeassistant"))
    let status = try await BrokerEndToEndTests.status(of: host) { $0.contains(#""silent":true"#) }
    #expect(status.contains(#""silent":true"#), "\(status)")
    #expect(status.contains(#""mode":"off""#) && status.contains(#""id":"p1""#), "dnd stayed off, p1 rings: \(status)")

    // p1 rings to its 3 s cap: a missed call, shared retained on callalert/missed/p1 with its caller.
    #expect(await host.events.first(within: 10) { $0.isEvent("missed", call: "p1") } != nil)
    let homeAssistant = try await broker.subscribe("callalert/missed/#", seconds: 5, as: Self.login("homeassistant"))
    defer { homeAssistant.kill(SIGKILL) }
    #expect(await LineLog(homeAssistant.lines).first(within: 5) { $0.contains("+4930123") } != nil)
    for reader in ["viewer", "stranger"] {
      let sub = try await broker.subscribe("callalert/missed/#", seconds: 2, as: Self.login(reader))
      var seen: [String] = []
      for await line in sub.lines { seen.append(line) }  // ends after -W 2 s
      #expect(!seen.contains { $0.contains("+4930123") }, "\(reader) read a missed caller: \(seen)")
    }
    try await host.stop()
    await broker.stop()
  }
}
