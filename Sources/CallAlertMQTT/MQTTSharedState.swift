import CallAlertControl
import CallAlertEngine
import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What one host shares on the broker, as retained messages: its availability, its state (missed calls,
/// do-not-disturb, silent), each board's state, and each missed call by id. ``update(_:)`` turns a status
/// report into the messages that changed since the last one; ``reset()`` (after a reconnection) makes the
/// next update publish everything again.
public struct MQTTSharedState: Sendable {
  /// The topic layout.
  public let topics: MQTTTopics
  /// Whether do-not-disturb is shared with every host on the base topic.
  public let shareDoNotDisturb: Bool
  private var published: [String: String] = [:]
  private var missed: [String: String] = [:]
  /// What the broker holds on each missed call's topic as last received (another host's copy, or its
  /// deletion): a host does not publish what is already there, so a call missed on 1 000 hosts is published
  /// about once, not 1 000 times to 1 000 subscribers.
  private var onBroker: [String: String] = [:]
  private var doNotDisturbSeen: String?
  /// The do-not-disturb override last received from another host: applying it must not echo it back.
  private var doNotDisturbReceived: String?

  /// A message to publish.
  public struct Publication: Equatable, Sendable {
    /// Its topic.
    public var topic: String
    /// Its payload; empty deletes a retained message.
    public var payload: String
    /// Whether the broker keeps it for later subscribers.
    public var retain: Bool

    /// Creates a message.
    public init(topic: String, payload: String, retain: Bool) {
      self.topic = topic
      self.payload = payload
      self.retain = retain
    }
  }

  /// Creates the state of a host that has published nothing yet.
  public init(topics: MQTTTopics, shareDoNotDisturb: Bool = true) {
    self.topics = topics
    self.shareDoNotDisturb = shareDoNotDisturb
  }

  /// The availability messages: `online` now, and the Last Will's `offline`.
  public static let online = "online"
  /// See ``online``.
  public static let offline = "offline"

  /// Publish everything again at the next update (the broker may have lost it, or it is a new session).
  public mutating func reset() {
    published = [:]
  }

  /// The missed call ids this host has published.
  public var missedIDs: Set<String> { Set(missed.keys) }

  /// The messages that changed: host and board state, missed calls added (their JSON) and cleared (empty,
  /// retained: deleted for every host), and the shared do-not-disturb when it was switched here.
  public mutating func update(_ report: StatusReport) -> [Publication] {
    var out: [Publication] = []
    func put(_ topic: String, _ payload: String) {
      guard published[topic] != payload else { return }
      published[topic] = payload
      out.append(Publication(topic: topic, payload: payload, retain: true))
    }
    put(topics.availability, Self.online)
    put(topics.hostState, Self.hostState(report))
    for board in report.boards {
      put(topics.board(board.name), Self.boardState(board, calls: report.calls))
    }
    var now: [String: String] = [:]
    for call in report.missed { now[call.id] = Self.missedCall(call) }
    for (id, payload) in now.sorted(by: { $0.key < $1.key })
    where published[topics.missed(id)] != payload && onBroker[topics.missed(id)] != payload {
      published[topics.missed(id)] = payload
      out.append(Publication(topic: topics.missed(id), payload: payload, retain: true))
    }
    for id in missed.keys.sorted() where now[id] == nil {
      published[topics.missed(id)] = nil
      if onBroker[topics.missed(id)] == "" { continue }
      out.append(Publication(topic: topics.missed(id), payload: "", retain: true))
    }
    missed = now
    let dnd = report.doNotDisturb
    let override = Self.switchKey(mode: dnd.override, until: dnd.until)
    if shareDoNotDisturb, override != doNotDisturbSeen {
      doNotDisturbSeen = override
      if let mode = dnd.override, override != doNotDisturbReceived {
        let payload = Self.doNotDisturb(mode, node: topics.node, until: dnd.until)
        out.append(Publication(topic: topics.doNotDisturb, payload: payload, retain: true))
        doNotDisturbReceived = override
      }
    }
    return out
  }

  /// Notes what the broker holds for a missed call (a message received on `<base>/missed/<id>`).
  public mutating func received(missed id: String, payload: [UInt8]) {
    onBroker[topics.missed(id)] = String(decoding: payload, as: UTF8.self)
    if onBroker.count > 4_096, let first = onBroker.keys.first { onBroker[first] = nil }
  }

  /// A do-not-disturb switch as hosts share it: the mode and, for a switch made for a while, when it ends.
  public struct DoNotDisturbSwitch: Equatable, Sendable {
    /// The mode switched to.
    public var mode: DoNotDisturbMode
    /// When it ends; nil: when switched again.
    public var until: Date?

    /// Creates a switch.
    public init(mode: DoNotDisturbMode, until: Date?) {
      self.mode = mode
      self.until = until
    }
  }

  /// What a shared do-not-disturb message asks of this host: the switch to make, or nil (its own message,
  /// the switch already in force, sharing off, or a payload that is not one). `current` is this host's
  /// switched mode and its end (``StatusReport/DoNotDisturb``'s `override` and `until`). A switch whose end has
  /// passed by `now` (a retained message read late) is not made.
  public mutating func received(
    doNotDisturb payload: [UInt8], current: (mode: String?, until: String?), now: Date
  ) -> DoNotDisturbSwitch? {
    guard shareDoNotDisturb, let value = try? JSONParser.parse(payload), let text = value["mode"]?.string,
      let mode = DoNotDisturbMode(rawValue: text), value["node"]?.string != topics.node
    else { return nil }
    let until = value["until"]?.string.flatMap(Timestamp.date(text:))
    if value["until"]?.string != nil, until == nil { return nil }
    let key = Self.switchKey(mode: text, until: until.map(Timestamp.iso8601))
    doNotDisturbReceived = key
    doNotDisturbSeen = key
    if let until, until <= now { return nil }
    return key == Self.switchKey(mode: current.mode, until: current.until)
      ? nil
      : DoNotDisturbSwitch(
        mode: mode, until: until)
  }

  /// The shared do-not-disturb message: `{"mode":"on","node":"upstairs"}`, with `"until"` (ISO 8601) for a
  /// switch made for a while.
  public static func doNotDisturb(_ mode: String, node: String, until: String? = nil) -> String {
    var members = [("mode", JSONText.quoted(mode)), ("node", JSONText.quoted(node))]
    if let until { members.append(("until", JSONText.quoted(until))) }
    return JSONText.object(members)
  }

  /// A switch as one string, to compare what was seen, received and published.
  static func switchKey(mode: String?, until: String?) -> String? {
    mode.map { $0 + (until.map { " until \($0)" } ?? "") }
  }

  /// `{"missed":1,"ringing":0,"dnd":"OFF","silent":"OFF","missed_calls":["c1"]}`.
  public static func hostState(_ report: StatusReport) -> String {
    JSONText.object([
      ("missed", String(report.missed.count)), ("ringing", String(report.calls.count)),
      ("dnd", report.doNotDisturb.active ? "\"ON\"" : "\"OFF\""),
      ("silent", report.doNotDisturb.silent ? "\"ON\"" : "\"OFF\""),
      ("missed_calls", JSONText.array(report.missed.map(\.id))),
    ])
  }

  /// `{"connected":true,"ringing":"ON","call":"c1","firmware":"1.2.0"}`.
  public static func boardState(_ board: StatusReport.Board, calls: [StatusReport.Call]) -> String {
    let ringing = board.playingCall != nil || calls.contains { $0.playingOn.contains(board.name) }
    return JSONText.object([
      ("connected", board.connected ? "true" : "false"), ("ringing", ringing ? "\"ON\"" : "\"OFF\""),
      ("call", JSONText.quoted(board.playingCall)), ("firmware", JSONText.quoted(board.firmware)),
    ])
  }

  /// A missed call as shared: `{"id":"c1","caller":"+4930123","name":"Alice"}`.
  public static func missedCall(_ call: StatusReport.Call) -> String {
    JSONText.object([
      ("id", JSONText.quoted(call.id)), ("caller", JSONText.quoted(call.caller)), ("name", JSONText.quoted(call.name)),
    ])
  }

  /// Reads a missed call shared by a host (to restore it on a host that did not see it ring).
  public static func missedCall(_ payload: [UInt8], id: String) -> IncomingCall? {
    guard let value = try? JSONParser.parse(payload), value["id"]?.string == id else { return nil }
    return IncomingCall(id: id, callerNumber: value["caller"]?.string, callerName: value["name"]?.string)
  }
}

/// An acknowledgement on one host, for all: `{"node":"upstairs","calls":["c1","c2"]}` on `<base>/ack`, the
/// ids of the calls it stopped ringing or cleared from missed. A host acts on it only when it has one of those
/// calls ringing or missed, so that its own acknowledgement, sent on in turn, ends there.
public struct MQTTAcknowledgement: Equatable, Sendable {
  /// The host it came from.
  public var node: String
  /// The calls it stopped or cleared.
  public var calls: [String]

  /// Creates an acknowledgement.
  public init(node: String, calls: [String]) {
    self.node = node
    self.calls = calls
  }

  /// Its payload.
  public var payload: String {
    JSONText.object([("node", JSONText.quoted(node)), ("calls", JSONText.array(calls))])
  }

  /// Reads a payload; nil when it is not one.
  public static func decode(_ payload: [UInt8]) -> MQTTAcknowledgement? {
    guard let value = try? JSONParser.parse(payload), let node = value["node"]?.string,
      let elements = value["calls"]?.elements
    else { return nil }
    let calls = elements.compactMap(\.string)
    guard calls.count == elements.count else { return nil }
    return MQTTAcknowledgement(node: node, calls: calls)
  }

  /// Whether a host (`node`, with these calls ringing and missed) should acknowledge.
  public func applies(to node: String, ringing: [String], missed: [String]) -> Bool {
    node != self.node && calls.contains { ringing.contains($0) || missed.contains($0) }
  }
}
