import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Home Assistant's MQTT discovery for one host: a device per board (siren, button event, ringing sensor),
/// and a device for the host (missed calls, do-not-disturb and silent switches, acknowledge button). Each
/// config is a retained JSON message on `<prefix>/<component>/callalert_<node>/<object>/config`, following
/// https://www.home-assistant.io/integrations/mqtt/ (checked in CallAlertMQTTTests against the documented
/// keys of each component).
public struct HomeAssistantDiscovery: Sendable {
  /// The topic layout (with the discovery prefix).
  public let topics: MQTTTopics

  /// A board as discovery describes it.
  public struct Board: Equatable, Sendable {
    /// Its name in the config.
    public var name: String
    /// Its firmware version, once it connected.
    public var firmware: String?

    /// Creates a board.
    public init(name: String, firmware: String? = nil) {
      self.name = name
      self.firmware = firmware
    }
  }

  /// A discovery config: its topic and JSON.
  public struct Config: Equatable, Sendable {
    /// The component (`siren`, `event`, `binary_sensor`, `sensor`, `switch`, `button`).
    public var component: String
    /// The topic.
    public var topic: String
    /// The JSON payload.
    public var payload: String
  }

  /// The event types of a board's button.
  public static let buttonEvents = ["press", "long_press"]

  /// A board's button event as Home Assistant's event entity takes it on `<base>/…/boards/<board>/button`: a
  /// JSON object whose `event_type` is one of ``buttonEvents``, `press` or (`long`) `long_press`.
  public static func buttonEvent(long: Bool) -> String {
    #"{"event_type":"\#(buttonEvents[long ? 1 : 0])"}"#
  }

  /// Creates the builder.
  public init(topics: MQTTTopics) { self.topics = topics }

  /// Every config for these boards, with `tones` (the pattern names) for the sirens; empty without a prefix.
  public func configs(boards: [Board], tones: [String]) -> [Config] {
    guard topics.discoveryPrefix != nil else { return [] }
    var configs: [Config] = []
    let availability = JSONText.quoted(topics.availability)
    let hostDevice = "callalert_\(topics.node)"
    func add(_ component: String, _ object: String, _ members: [(String, String)], device: String) {
      guard let topic = topics.discovery(component, object: object) else { return }
      let all =
        members + [
          ("unique_id", JSONText.quoted("callalert_\(topics.node)_\(object)")),
          ("availability_topic", availability), ("device", device),
        ]
      configs.append(Config(component: component, topic: topic, payload: JSONText.object(all)))
    }
    for board in boards {
      let object = Self.objectID(board.name)
      var device: [(String, String)] = [
        ("identifiers", JSONText.array(["callalert_\(topics.node)_\(object)"])),
        ("name", JSONText.quoted("\(board.name) (\(topics.node))")), ("manufacturer", "\"CallAlert\""),
        ("model", "\"CallAlert board\""), ("via_device", JSONText.quoted(hostDevice)),
      ]
      if let firmware = board.firmware { device.append(("sw_version", JSONText.quoted(firmware))) }
      let json = JSONText.object(device)
      let state = JSONText.quoted(topics.board(board.name))
      add(
        "siren", "\(object)_siren",
        [
          ("name", "\"Ring\""), ("command_topic", JSONText.quoted(topics.ringCommand(board.name))),
          ("state_topic", state), ("state_value_template", "\"{{ value_json.ringing }}\""),
          ("available_tones", JSONText.array(tones)), ("support_duration", "true"), ("support_volume_set", "false"),
        ], device: json)
      add(
        "event", "\(object)_button",
        [
          ("name", "\"Button\""), ("state_topic", JSONText.quoted(topics.button(board.name))),
          ("event_types", JSONText.array(Self.buttonEvents)), ("device_class", "\"button\""),
        ], device: json)
      add(
        "binary_sensor", "\(object)_ringing",
        [
          ("name", "\"Ringing\""), ("state_topic", state), ("value_template", "\"{{ value_json.ringing }}\""),
          ("device_class", "\"sound\""),
        ], device: json)
    }
    let host = JSONText.object([
      ("identifiers", JSONText.array([hostDevice])), ("name", JSONText.quoted("CallAlert \(topics.node)")),
      ("manufacturer", "\"CallAlert\""), ("model", "\"CallAlert host\""),
    ])
    let hostState = JSONText.quoted(topics.hostState)
    add(
      "sensor", "missed_calls",
      [
        ("name", "\"Missed calls\""), ("state_topic", hostState), ("value_template", "\"{{ value_json.missed }}\""),
        ("state_class", "\"measurement\""), ("icon", "\"mdi:phone-missed\""),
      ], device: host)
    add(
      "switch", "dnd",
      [
        ("name", "\"Do not disturb\""), ("command_topic", JSONText.quoted(topics.command(.doNotDisturb))),
        ("state_topic", hostState), ("value_template", "\"{{ value_json.dnd }}\""), ("icon", "\"mdi:bell-off\""),
      ], device: host)
    add(
      "switch", "silent",
      [
        ("name", "\"Silent\""), ("command_topic", JSONText.quoted(topics.command(.silent))),
        ("state_topic", hostState), ("value_template", "\"{{ value_json.silent }}\""), ("icon", "\"mdi:vibrate\""),
      ], device: host)
    add(
      "button", "acknowledge",
      [
        ("name", "\"Acknowledge\""), ("command_topic", JSONText.quoted(topics.command(.acknowledge))),
        ("payload_press", "\"PRESS\""), ("icon", "\"mdi:check\""),
      ], device: host)
    return configs
  }

  /// The configs on the broker (`retained`, found under this host's node id) that ``configs(boards:tones:)``
  /// no longer makes: each is deleted with an empty retained message, which removes the entity.
  public func stale(retained: Set<String>, current: [Config]) -> [String] {
    let wanted = Set(current.map(\.topic))
    return retained.subtracting(wanted).sorted()
  }

  /// A board name as an object id: lower-case `a-z`, `0-9`, `_`, `-`; anything else `_`.
  public static func objectID(_ name: String) -> String {
    let id = String(name.lowercased().map { MQTTSettings.isNodeCharacter($0) ? $0 : "_" })
    return id.isEmpty ? "_" : id
  }
}

/// What a siren's command asks: Home Assistant sends `{"state":"ON","tone":"bell","duration":5}` (or `ON` and
/// `OFF` from a plain publisher).
public struct SirenCommand: Equatable, Sendable {
  /// Ring (true) or stop.
  public var on: Bool
  /// The pattern to ring; nil: the default.
  public var tone: String?
  /// How long, in seconds; nil: the cap.
  public var duration: Int?

  /// Creates a command.
  public init(on: Bool, tone: String? = nil, duration: Int? = nil) {
    self.on = on
    self.tone = tone
    self.duration = duration
  }

  /// Reads a command; nil when it is neither JSON with `state` nor `ON`/`OFF`.
  public static func decode(_ payload: [UInt8]) -> SirenCommand? {
    let text = String(decoding: payload, as: UTF8.self).trimmingWhitespace()
    if text == "ON" { return SirenCommand(on: true) }
    if text == "OFF" { return SirenCommand(on: false) }
    guard let value = try? JSONParser.parse(payload), let state = value["state"]?.string,
      state == "ON" || state == "OFF"
    else { return nil }
    var duration: Int?
    if let number = value["duration"], case .number(let digits) = number.kind {
      duration = Int(digits) ?? Double(digits).map { Int($0.rounded()) }
    }
    return SirenCommand(on: state == "ON", tone: value["tone"]?.string, duration: duration)
  }
}
