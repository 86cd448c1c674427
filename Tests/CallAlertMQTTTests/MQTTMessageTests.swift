import CallAlertControl
import CallAlertEngine
import CallAlertMQTT
import CallAlertText
import Foundation
import Testing

/// The pure pieces of the MQTT link: topics, call messages, the deduplication, shared state, acknowledgements.
@Suite("MQTT messages")
struct MQTTMessageTests {
  let topics = MQTTTopics(base: "callalert", node: "upstairs", discoveryPrefix: "homeassistant")

  @Test func topicsRouteWhatThisHostReads() {
    #expect(topics.route("callalert/calls/c1") == .call(id: "c1"))
    #expect(topics.route("callalert/calls/box:0/261123-214604") == .call(id: "box:0/261123-214604"))
    #expect(topics.route(topics.call("a+b#c%d")) == .call(id: "a+b#c%d"))
    #expect(topics.call("a+b#") == "callalert/calls/a%2Bb%23")
    #expect(topics.route("callalert/missed/c9") == .missed(id: "c9"))
    #expect(topics.route("callalert/ack") == .acknowledgement)
    #expect(topics.route("callalert/dnd") == .doNotDisturb)
    #expect(topics.route("callalert/hosts/upstairs/set/dnd") == .command(.doNotDisturb))
    #expect(topics.route("callalert/hosts/upstairs/boards/desk/ring/set") == .ring(board: "desk"))
    #expect(topics.route("callalert/hosts/downstairs/set/dnd") == .other)
    #expect(topics.route("callalert/hosts/upstairs/state") == .other)
    #expect(topics.route("homeassistant/status") == .homeAssistantStatus)
    #expect(
      topics.route("homeassistant/siren/callalert_upstairs/old_siren/config")
        == .ownDiscovery(topic: "homeassistant/siren/callalert_upstairs/old_siren/config"))
    #expect(topics.route("callalert/calls/") == .other)
    #expect(topics.route("callalert/calls/%zz") == .other)
  }

  @Test func aCallMessageIsTheControlProtocolsCall() throws {
    let payload = Array(#"{"type":"call","id":"c1","caller":"+4930123","sent_at":"2026-11-24T10:00:00Z"}"#.utf8)
    let decoded = try MQTTCallMessage.decode(
      payload, topic: "callalert/calls/c1", topicID: "c1", retained: true, now: Date())
    guard case .input(.call(let call)) = decoded else { Issue.record("\(decoded)"); return }
    #expect(call.id == "c1" && call.callerNumber == "+4930123")
    #expect(call.sentAt == Date(timeIntervalSince1970: 1_795_514_400))
    #expect(
      try MQTTCallMessage.decode(
        Array(#"{"type":"hangup","id":"c1"}"#.utf8), topic: "t/c1", topicID: "c1", retained: false, now: Date())
        == .input(.hangup(callID: "c1")))
    #expect(
      try MQTTCallMessage.decode(
        Array(#"{"type":"answered"}"#.utf8), topic: "t/c1", topicID: "c1", retained: false, now: Date())
        == .input(.answered(callID: "c1")))
    #expect(try MQTTCallMessage.decode([], topic: "t/c1", topicID: "c1", retained: true, now: Date()) == .cleared)
    // The topic says it is a call: a message that leaves "type" out is one.
    let bare = try MQTTCallMessage.decode(
      Array(#"{"id":"c1","caller":"+4930123"}"#.utf8), topic: "t/c1", topicID: "c1", retained: false, now: Date())
    guard case .input(.call(let untyped)) = bare else { Issue.record("\(bare)"); return }
    #expect(untyped.id == "c1" && untyped.callerNumber == "+4930123")
  }

  @Test(arguments: [
    (#"{"type":"call","id":"c2"}"#, false, "mqtt:callalert/calls/c1:1:1: id: \"c2\" is not the topic's call id"),
    (#"{"type":"call","id":"c1"}"#, true, "mqtt:callalert/calls/c1:1:1: sent_at: a retained call needs"),
    (
      #"{"type":"status"}"#, false,
      "mqtt:callalert/calls/c1:1:9: type: \"status\" is not one of call, hangup, answered"
    ),
    (
      #"{"type":"hangp","id":"c1"}"#, false,
      "mqtt:callalert/calls/c1:1:9: type: \"hangp\" is not one of call, hangup, answered; did you mean 'hangup'?"
    ),
    (#"{"caller":"+4930123"}"#, false, "mqtt:callalert/calls/c1:1:1: id: missing"),
    (#"{"id":"c1","reason":"x"}"#, false, "mqtt:callalert/calls/c1:1:12: reason: unknown field"),
    (
      #"{"type":"call","id":"c1","callr":"1"}"#, false,
      "mqtt:callalert/calls/c1:1:26: callr: unknown field; did you mean 'caller'?"
    ),
    ("garbage", false, "mqtt:callalert/calls/c1:1:1: JSON syntax error"),
    // Bounds: a 10 MB message was taken whole and shared again, retained; a call "sent" in 2036 rang at every
    // restart.
    (
      #"{"id":"c1","name":""# + String(repeating: "x", count: 5_000) + #""}"#, false,
      "mqtt:callalert/calls/c1:1:1: message: the message is 5021 bytes; a call message is at most 4096 (4 KiB)"
    ),
    (
      #"{"id":"c1","sent_at":"2036-01-01T00:00:00Z"}"#, true,
      "mqtt:callalert/calls/c1:1:1: sent_at: the call says it was sent"
    ),
    (
      #"{"id":"c1","name":""# + String(repeating: "x", count: 300) + #""}"#, false,
      "mqtt:callalert/calls/c1:1:1: name: 300 characters; a call message's name is at most 256"
    ),
  ])
  func aBadCallMessageIsRefusedWithItsPlace(_ text: String, retained: Bool, expected: String) {
    #expect(throws: InputError.self) {
      try MQTTCallMessage.decode(
        Array(text.utf8), topic: "callalert/calls/c1", topicID: "c1", retained: retained, now: Date())
    }
    do {
      _ = try MQTTCallMessage.decode(
        Array(text.utf8), topic: "callalert/calls/c1", topicID: "c1", retained: retained, now: Date())
    } catch {
      #expect(error.description.hasPrefix(expected), "\(error)")
    }
  }

  /// A clock a little ahead is taken: up to 60 s.
  @Test func aSentTimeSlightlyAheadIsTaken() throws {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let ahead = #"{"id":"c1","sent_at":1800000050}"#
    #expect(throws: Never.self) {
      try MQTTCallMessage.decode(Array(ahead.utf8), topic: "t/c1", topicID: "c1", retained: true, now: now)
    }
    let far = #"{"id":"c1","sent_at":1800000061}"#
    #expect(throws: InputError.self) {
      try MQTTCallMessage.decode(Array(far.utf8), topic: "t/c1", topicID: "c1", retained: false, now: now)
    }
  }

  @Test func aRedeliveredMessageIsAdmittedOnce() {
    var deduplicator = MQTTDeduplicator(window: 60_000, capacity: 3)
    let call = EngineInput.call(IncomingCall(id: "c1"))
    var admitted: [Bool] = []
    for (input, now) in [
      (call, 0), (call, 10), (.hangup(callID: "c1"), 20), (.hangup(callID: "c1"), 30), (call, 59_999),
      (call, 60_000),  // remembered for the window only
    ] as [(EngineInput, UInt64)] {
      admitted.append(deduplicator.admit(input, nowMs: now))
    }
    #expect(admitted == [true, false, true, false, false, true])
    var fresh: [Bool] = []
    for id in ["a", "b", "c", "d"] { fresh.append(deduplicator.admit(.call(IncomingCall(id: id)), nowMs: 60_001)) }
    #expect(fresh == [true, true, true, true])
    #expect(deduplicator.count == 3)  // the oldest forgotten first
    let again = deduplicator.admit(.call(IncomingCall(id: "d")), nowMs: 60_002)
    #expect(!again)
  }

  static func report(missed: [String] = [], ringing: String? = nil, override: String? = nil) -> StatusReport {
    var snapshot = EngineSnapshot(
      activeCalls: [], missedCalls: missed.map { IncomingCall(id: $0, callerNumber: "+4930123") },
      doNotDisturb: .init(
        configuredMode: .off, override: override.flatMap(DoNotDisturbMode.init(rawValue:)), isActive: override == "on",
        silent: false, silentOverride: nil),
      boards: [.init(name: "desk", connected: true, callID: ringing, token: ringing == nil ? nil : 1)],
      nextDeadlineMs: nil)
    snapshot.boards[0].connected = true
    return StatusReport(snapshot, boardInfos: [:])
  }

  @Test func sharedStateIsPublishedOnceAndThenOnlyWhatChanged() {
    var state = MQTTSharedState(topics: topics)
    let first = state.update(Self.report())
    #expect(
      first.map(\.topic) == [
        "callalert/hosts/upstairs/availability", "callalert/hosts/upstairs/state",
        "callalert/hosts/upstairs/boards/desk/state",
      ])
    #expect(first.allSatisfy { $0.retain })
    let unchanged = state.update(Self.report())
    #expect(unchanged.isEmpty)
    let missed = state.update(Self.report(missed: ["c1"]))
    #expect(missed.map(\.topic) == ["callalert/hosts/upstairs/state", "callalert/missed/c1"])
    #expect(missed.last?.payload == #"{"id":"c1","caller":"+4930123","name":null}"#)
    let cleared = state.update(Self.report())
    #expect(cleared.last == .init(topic: "callalert/missed/c1", payload: "", retain: true))
    state.reset()
    let everything = state.update(Self.report())
    #expect(everything.count == 3)
  }

  @Test func doNotDisturbIsSharedOnceAndNotEchoed() {
    var state = MQTTSharedState(topics: topics)
    _ = state.update(Self.report())
    let switched = state.update(Self.report(override: "on"))
    #expect(
      switched.contains(.init(topic: "callalert/dnd", payload: #"{"mode":"on","node":"upstairs"}"#, retain: true)))
    // Another host switches it off: this host applies it and does not publish it back.
    let applied = state.received(
      doNotDisturb: Array(#"{"mode":"off","node":"downstairs"}"#.utf8), current: ("on", nil), now: Self.now)
    #expect(applied == .init(mode: .off, until: nil))
    let after = state.update(Self.report(override: "off"))
    #expect(!after.contains { $0.topic == "callalert/dnd" })
    // Its own message, come back, changes nothing.
    let own = state.received(
      doNotDisturb: Array(#"{"mode":"on","node":"upstairs"}"#.utf8), current: ("off", nil), now: Self.now)
    #expect(own == nil)
    var unshared = MQTTSharedState(topics: topics, shareDoNotDisturb: false)
    let notShared = unshared.update(Self.report(override: "on"))
    #expect(!notShared.contains { $0.topic == "callalert/dnd" })
    let notApplied = unshared.received(
      doNotDisturb: Array(#"{"mode":"off","node":"x"}"#.utf8), current: ("on", nil), now: Self.now)
    #expect(notApplied == nil)
  }

  static let now = Date(timeIntervalSince1970: 1_795_000_000)

  /// A switch made for a while is shared with its end; another host makes it with that end, and a retained one
  /// whose end has passed is not made. A new end of the same mode is a new switch.
  @Test func aSwitchForAWhileIsSharedWithItsEnd() {
    var state = MQTTSharedState(topics: topics)
    _ = state.update(Self.report())
    var report = Self.report(override: "on")
    report.doNotDisturb.until = "2026-11-28T07:00:00.000Z"
    let switched = state.update(report)
    #expect(
      switched.contains(
        .init(
          topic: "callalert/dnd", payload: #"{"mode":"on","node":"upstairs","until":"2026-11-28T07:00:00.000Z"}"#,
          retain: true)))
    report.doNotDisturb.until = "2026-11-28T08:00:00.000Z"
    #expect(state.update(report).contains { $0.topic == "callalert/dnd" && $0.payload.contains("08:00:00") })

    var other = MQTTSharedState(
      topics: MQTTTopics(base: "callalert", node: "downstairs", discoveryPrefix: "homeassistant"))
    let message = Array(#"{"mode":"on","node":"upstairs","until":"2026-11-28T08:00:00.000Z"}"#.utf8)
    let before = Date(timeIntervalSince1970: 1_795_840_200)  // 2026-11-28T04:30:00Z
    let made = other.received(doNotDisturb: message, current: (nil, nil), now: before)
    #expect(made == .init(mode: .on, until: Date(timeIntervalSince1970: 1_795_852_800)))
    var late = MQTTSharedState(
      topics: MQTTTopics(base: "callalert", node: "downstairs", discoveryPrefix: "homeassistant"))
    #expect(
      late.received(doNotDisturb: message, current: (nil, nil), now: Date(timeIntervalSince1970: 1_795_854_000)) == nil)
    var garbled = MQTTSharedState(
      topics: MQTTTopics(base: "callalert", node: "downstairs", discoveryPrefix: "homeassistant"))
    let bad = Array(#"{"mode":"on","node":"upstairs","until":"tomorrow"}"#.utf8)
    #expect(garbled.received(doNotDisturb: bad, current: (nil, nil), now: before) == nil)
  }

  @Test func anAcknowledgementAppliesWhereOneOfItsCallsIs() throws {
    let ack = MQTTAcknowledgement(node: "downstairs", calls: ["c1", "c2"])
    #expect(ack.payload == #"{"node":"downstairs","calls":["c1","c2"]}"#)
    #expect(MQTTAcknowledgement.decode(Array(ack.payload.utf8)) == ack)
    #expect(MQTTAcknowledgement.decode(Array(#"{"node":"x","calls":[1]}"#.utf8)) == nil)
    #expect(ack.applies(to: "upstairs", ringing: [], missed: ["c2"]))
    #expect(ack.applies(to: "upstairs", ringing: ["c1"], missed: []))
    #expect(!ack.applies(to: "upstairs", ringing: ["c3"], missed: ["c4"]))  // the echo of a cleared host ends
    #expect(!ack.applies(to: "downstairs", ringing: ["c1"], missed: []))  // its own
  }

  @Test func sirenCommandsAreHomeAssistantsJSONOrPlainOnOff() {
    #expect(SirenCommand.decode(Array("ON".utf8)) == SirenCommand(on: true))
    #expect(SirenCommand.decode(Array("OFF".utf8)) == SirenCommand(on: false))
    #expect(
      SirenCommand.decode(Array(#"{"state":"ON","tone":"UK","duration":5}"#.utf8))
        == SirenCommand(on: true, tone: "UK", duration: 5))
    #expect(SirenCommand.decode(Array(#"{"state":"maybe"}"#.utf8)) == nil)
    #expect(SirenCommand.decode(Array("ring".utf8)) == nil)
  }
}

extension MQTTMessageTests {
  @Test func aCallSeenHereIsKnownSoItIsNotRestoredFromAnotherHost() {
    var deduplicator = MQTTDeduplicator()
    #expect(!deduplicator.knows(callID: "c1"))
    _ = deduplicator.admit(.call(IncomingCall(id: "c1")), nowMs: 0)
    _ = deduplicator.admit(.hangup(callID: "c2"), nowMs: 0)
    #expect(deduplicator.knows(callID: "c1"))
    #expect(!deduplicator.knows(callID: "c2"))
  }
}

extension MQTTMessageTests {
  @Test func aMissedCallAlreadyOnTheBrokerIsNotPublishedAgain() {
    var state = MQTTSharedState(topics: topics)
    _ = state.update(Self.report())
    state.received(missed: "c1", payload: Array(#"{"id":"c1","caller":"+4930123","name":null}"#.utf8))
    let missed = state.update(Self.report(missed: ["c1"]))
    #expect(!missed.contains { $0.topic == "callalert/missed/c1" })
    state.received(missed: "c1", payload: [])
    let cleared = state.update(Self.report())
    #expect(!cleared.contains { $0.topic == "callalert/missed/c1" })
  }
}

extension MQTTMessageTests {
  @Test func aRetainedCallPastItsCapIsStale() {
    let now = Date(timeIntervalSince1970: 1_000_000)
    let call = EngineInput.call(IncomingCall(id: "c1", sentAt: now.addingTimeInterval(-30)))
    #expect(MQTTCallMessage.isStale(call, retained: true, now: now, capMs: 30_000))
    #expect(!MQTTCallMessage.isStale(call, retained: true, now: now, capMs: 31_000))
    #expect(!MQTTCallMessage.isStale(call, retained: false, now: now, capMs: 30_000))  // live: late, and missed
    #expect(!MQTTCallMessage.isStale(.hangup(callID: "c1"), retained: true, now: now, capMs: 1))
  }
}
