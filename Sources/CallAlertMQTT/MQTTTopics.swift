/// Where everything lives on the broker, under the base topic (default `callalert`) and this host's node id
/// (docs/MQTT.md has the table). Call ids and board names become topic levels with `%`, `+`, `#` and NUL
/// percent-encoded, since MQTT forbids the wildcards in topic names.
public struct MQTTTopics: Equatable, Sendable {
  /// The base topic.
  public let base: String
  /// This host's node id.
  public let node: String
  /// Home Assistant's discovery prefix, if discovery is on.
  public let discoveryPrefix: String?

  /// Creates the layout.
  public init(base: String, node: String, discoveryPrefix: String? = nil) {
    self.base = base
    self.node = node
    self.discoveryPrefix = discoveryPrefix
  }

  /// Every call message: `<base>/calls/<id>` (the id may span levels).
  public var callsFilter: String { "\(base)/calls/#" }
  /// One call's topic.
  public func call(_ id: String) -> String { "\(base)/calls/\(Self.encode(id))" }
  /// This host's availability, `online` or `offline` (its Last Will), retained.
  public var availability: String { availability(of: node) }
  /// A host's availability.
  public func availability(of node: String) -> String { "\(base)/hosts/\(node)/availability" }
  /// This host's state (missed calls, do-not-disturb, silent), retained JSON.
  public var hostState: String { "\(base)/hosts/\(node)/state" }
  /// A board's state (connected, ringing, what it plays), retained JSON.
  public func board(_ name: String) -> String { "\(base)/hosts/\(node)/boards/\(Self.encode(name))/state" }
  /// A board's button events (not retained): `{"event_type":"press"}` or `{"event_type":"long_press"}`.
  public func button(_ name: String) -> String { "\(base)/hosts/\(node)/boards/\(Self.encode(name))/button" }
  /// Commands to one board: ring a pattern (Home Assistant's siren).
  public func ringCommand(_ name: String) -> String {
    "\(base)/hosts/\(node)/boards/\(Self.encode(name))/ring/set"
  }
  /// Commands to this host (`set/dnd`, `set/silent`, `set/ack`) and to its boards (`boards/<b>/ring/set`):
  /// two filters, so that the host does not receive its own state back.
  public var commandsFilters: [String] {
    ["\(base)/hosts/\(node)/set/+", "\(base)/hosts/\(node)/boards/+/ring/set"]
  }
  /// A host command's topic.
  public func command(_ what: HostCommand) -> String { "\(base)/hosts/\(node)/set/\(what.rawValue)" }
  /// Missed calls by id, retained JSON; an empty retained message clears one.
  public var missedFilter: String { "\(base)/missed/#" }
  /// One missed call's topic.
  public func missed(_ id: String) -> String { "\(base)/missed/\(Self.encode(id))" }
  /// Acknowledgements, from any host to all (not retained).
  public var acknowledgements: String { "\(base)/ack" }
  /// Do-not-disturb shared by every host on the base topic, retained.
  public var doNotDisturb: String { "\(base)/dnd" }
  /// Home Assistant's birth message.
  public var homeAssistantStatus: String? { discoveryPrefix.map { "\($0)/status" } }
  /// This host's own discovery configs, to find the ones of boards no longer configured.
  public var ownDiscoveryFilter: String? { discoveryPrefix.map { "\($0)/+/callalert_\(node)/+/config" } }
  /// A discovery config topic: `<prefix>/<component>/callalert_<node>/<object>/config`.
  public func discovery(_ component: String, object: String) -> String? {
    discoveryPrefix.map { "\($0)/\(component)/callalert_\(node)/\(object)/config" }
  }

  /// The commands a host takes.
  public enum HostCommand: String, CaseIterable, Sendable {
    /// `ON`/`OFF`: do-not-disturb.
    case doNotDisturb = "dnd"
    /// `ON`/`OFF`: silent (motor only).
    case silent
    /// Anything: acknowledge (stops ringing, clears missed calls).
    case acknowledge = "ack"
  }

  /// What a received topic is.
  public enum Route: Equatable, Sendable {
    /// A call message for this id.
    case call(id: String)
    /// A missed call's retained state.
    case missed(id: String)
    /// An acknowledgement.
    case acknowledgement
    /// The shared do-not-disturb.
    case doNotDisturb
    /// A command to this host.
    case command(HostCommand)
    /// A ring command to one of this host's boards.
    case ring(board: String)
    /// Home Assistant's `online`/`offline`.
    case homeAssistantStatus
    /// One of this host's discovery configs, as retained on the broker.
    case ownDiscovery(topic: String)
    /// Something of ours that needs no action (another host's state, our own retained state).
    case other
  }

  /// What `topic` is.
  public func route(_ topic: String) -> Route {
    if let rest = Self.suffix(topic, after: "\(base)/calls/") {
      return Self.decode(rest).map { .call(id: $0) } ?? .other
    }
    if let rest = Self.suffix(topic, after: "\(base)/missed/") {
      return Self.decode(rest).map { .missed(id: $0) } ?? .other
    }
    if topic == acknowledgements { return .acknowledgement }
    if topic == doNotDisturb { return .doNotDisturb }
    if let rest = Self.suffix(topic, after: "\(base)/hosts/\(node)/set/") {
      return HostCommand(rawValue: rest).map { .command($0) } ?? .other
    }
    if let rest = Self.suffix(topic, after: "\(base)/hosts/\(node)/boards/"), rest.hasSuffix("/ring/set") {
      let level = String(rest.dropLast("/ring/set".count))
      if !level.contains("/"), let board = Self.decode(level) { return .ring(board: board) }
      return .other
    }
    if let status = homeAssistantStatus, topic == status { return .homeAssistantStatus }
    if let prefix = discoveryPrefix, topic.hasPrefix(prefix + "/"), topic.hasSuffix("/config"),
      topic.contains("/callalert_\(node)/")
    {
      return .ownDiscovery(topic: topic)
    }
    return .other
  }

  private static func suffix(_ topic: String, after prefix: String) -> String? {
    guard topic.hasPrefix(prefix), topic.utf8.count > prefix.utf8.count else { return nil }
    return String(topic.dropFirst(prefix.count))
  }

  /// A name as topic text: `%`, `+`, `#` and NUL percent-encoded.
  public static func encode(_ name: String) -> String {
    var result = ""
    for scalar in name.unicodeScalars {
      switch scalar {
      case "%": result += "%25"
      case "+": result += "%2B"
      case "#": result += "%23"
      case "\u{0}": result += "%00"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// The name a topic level spells; nil when a `%` is not followed by two hex digits.
  public static func decode(_ text: String) -> String? {
    guard text.contains("%") else { return text }
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    while let byte = utf8.popFirst() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
        return nil
      }
      bytes.append(value)
      utf8 = utf8.dropFirst(2)
    }
    return String(validating: bytes, as: UTF8.self)
  }
}
