import CallAlertMQTT
import CallAlertText
import Foundation
import Testing

/// Discovery payloads checked against Home Assistant's documented configuration variables for each entity
/// kind (Fixtures/home-assistant-mqtt-schema.json, taken from the MQTT integration pages).
@Suite("Home Assistant discovery")
struct HomeAssistantDiscoveryTests {
  struct Schema {
    let common: Set<String>
    let device: Set<String>
    /// Each component kind's documented keys, by kind.
    let components: JSONValue

    static func load() throws -> Schema {
      let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/home-assistant-mqtt-schema.json")
      let root = try JSONParser.parse(Array(try Data(contentsOf: url)))
      return Schema(
        common: Set(root["common"]?.strings ?? []), device: Set(root["device"]?.strings ?? []),
        components: try #require(root["components"]))
    }

    /// What is wrong with one config, against the documented keys of its component.
    func problems(_ config: HomeAssistantDiscovery.Config) -> [String] {
      guard let component = components[config.component] else { return ["unknown component \(config.component)"] }
      guard let object = try? JSONParser.parse(config.payload), let members = object.members else {
        return ["not a JSON object: \(config.payload)"]
      }
      var problems: [String] = []
      let keys = common.union(component["keys"]?.strings ?? [])
      for member in members where !keys.contains(member.key) { problems.append("undocumented key \(member.key)") }
      for key in component["required"]?.strings ?? [] where object[key] == nil {
        problems.append("missing required \(key)")
      }
      for key in component["lists"]?.strings ?? [] where object[key] != nil && object[key]?.strings == nil {
        problems.append("\(key) is not a list of strings")
      }
      if let classes = component["device_classes"]?.strings, let value = object["device_class"]?.string,
        !classes.contains(value)
      {
        problems.append("device_class \(value) is not one of \(classes)")
      }
      if let classes = component["state_classes"]?.strings, let value = object["state_class"]?.string,
        !classes.contains(value)
      {
        problems.append("state_class \(value)")
      }
      if object["unique_id"]?.string == nil { problems.append("no unique_id (the device registry needs one)") }
      if let device = object["device"], let deviceMembers = device.members {
        for member in deviceMembers where !self.device.contains(member.key) {
          problems.append("undocumented device key \(member.key)")
        }
        if device["identifiers"]?.strings?.isEmpty ?? true { problems.append("device without identifiers") }
      } else {
        problems.append("no device")
      }
      for member in members where member.key.hasSuffix("_topic") {
        if let topic = member.value.string, topic.contains("+") || topic.contains("#") || topic.isEmpty {
          problems.append("\(member.key) \(topic) is not a topic name")
        }
      }
      return problems
    }
  }

  let discovery = HomeAssistantDiscovery(
    topics: MQTTTopics(base: "callalert", node: "upstairs", discoveryPrefix: "homeassistant"))

  @Test func everyPayloadFollowsHomeAssistantsSchemaForItsKind() throws {
    let schema = try Schema.load()
    let configs = discovery.configs(
      boards: [.init(name: "desk", firmware: "1.2.0"), .init(name: "Bed Shaker")], tones: ["UK", "US", "urgent"])
    #expect(
      Set(configs.map(\.component)) == ["siren", "event", "binary_sensor", "sensor", "switch", "button"])
    #expect(configs.count == 2 * 3 + 4)
    for config in configs {
      #expect(schema.problems(config).isEmpty, "\(config.topic): \(schema.problems(config))")
      #expect(config.topic.hasPrefix("homeassistant/\(config.component)/callalert_upstairs/"))
      #expect(config.topic.hasSuffix("/config"))
    }
    #expect(Set(configs.map(\.topic)).count == configs.count)
  }

  @Test func aBoardIsOneDeviceWithItsFirmwareAndTheSirenOffersThePatterns() throws {
    let configs = discovery.configs(boards: [.init(name: "desk", firmware: "1.2.0")], tones: ["UK", "urgent"])
    let siren = try #require(configs.first { $0.component == "siren" })
    let object = try JSONParser.parse(siren.payload)
    #expect(object["available_tones"]?.strings == ["UK", "urgent"])
    #expect(object["support_duration"]?.bool == true)
    #expect(object["command_topic"]?.string == "callalert/hosts/upstairs/boards/desk/ring/set")
    #expect(object["availability_topic"]?.string == "callalert/hosts/upstairs/availability")
    let device = try #require(object["device"])
    #expect(device["sw_version"]?.string == "1.2.0")
    #expect(device["identifiers"]?.strings == ["callalert_upstairs_desk"])
    // The board's three entities share its device.
    let boardConfigs = configs.filter { $0.topic.contains("/desk_") }
    #expect(boardConfigs.count == 3)
    for config in boardConfigs {
      #expect(config.payload.contains(#""identifiers":["callalert_upstairs_desk"]"#), "\(config.payload)")
    }
    let event = try #require(configs.first { $0.component == "event" })
    #expect(event.payload.contains(#""event_types":["press","long_press"]"#))
  }

  @Test func aBoardLeavingTheConfigLeavesStaleConfigsToDelete() {
    let before = discovery.configs(boards: [.init(name: "desk"), .init(name: "bed")], tones: ["UK"])
    let after = discovery.configs(boards: [.init(name: "desk")], tones: ["UK"])
    let stale = discovery.stale(retained: Set(before.map(\.topic)), current: after)
    #expect(
      stale == [
        "homeassistant/binary_sensor/callalert_upstairs/bed_ringing/config",
        "homeassistant/event/callalert_upstairs/bed_button/config",
        "homeassistant/siren/callalert_upstairs/bed_siren/config",
      ])
  }

  @Test func noPrefixNoDiscovery() {
    let off = HomeAssistantDiscovery(topics: MQTTTopics(base: "callalert", node: "upstairs"))
    #expect(off.configs(boards: [.init(name: "desk")], tones: []).isEmpty)
  }
}
