import CallAlertBridges
import CallAlertText
import CallAlertValues
internal import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `mqtt:` section: the broker, this host's identity on it, and what is shared (docs/MQTT.md).
extension ConfigParser {
  /// The keys of the section.
  static let mqttKeys = [
    "broker", "client_id", "user", "password_file", "ca_file", "base_topic", "node_id", "share_dnd", "discovery",
    "keepalive",
  ]

  /// Reads the section; nil (with errors recorded) when anything in it is wrong.
  mutating func mqtt(_ node: Node) -> MQTTSettings? {
    guard let fields = mapping(node, "mqtt", example: "'broker: mqtt://broker.local'") else { return nil }
    checkKeys(fields, allowed: Self.mqttKeys, "mqtt")
    var valid = true
    guard let brokerNode = fields.value("broker") else {
      error(node, "mqtt.broker", "the mqtt section needs 'broker:' (e.g. mqtt://broker.local or mqtts://host:8883)")
      return nil
    }
    guard let text = nonEmptyText(brokerNode, "mqtt.broker"), let url = brokerURL(text, brokerNode) else {
      return nil
    }
    var settings = MQTTSettings(host: url.host, port: url.port, tls: url.tls, url: text)
    if let node = fields.value("node_id") {
      if let id = topicLevel(node, "mqtt.node_id") { settings.nodeID = id } else { valid = false }
    }
    settings.clientID = "callalert-\(settings.nodeID)"
    if let node = fields.value("client_id") {
      if let id = nonEmptyText(node, "mqtt.client_id") {
        settings.clientID = id
      } else {
        valid = false
      }
    }
    if let node = fields.value("user") {
      if let user = nonEmptyText(node, "mqtt.user") { settings.username = user } else { valid = false }
    }
    if let node = fields.value("password_file") {
      if let file = path(node, "mqtt.password_file") {
        do {
          _ = try SecretFile.read(file, holding: "the password")
          settings.passwordFile = file
        } catch {
          self.error(node, "mqtt.password_file", error.description.replacing("secret", with: "password"))
          valid = false
        }
      } else {
        valid = false
      }
      if settings.username == nil {
        error(node, "mqtt.password_file", "a password needs 'user:' beside it")
        valid = false
      }
    }
    if let node = fields.value("ca_file") {
      if let file = path(node, "mqtt.ca_file") {
        if !url.tls {
          error(node, "mqtt.ca_file", "a CA file is for mqtts:// brokers; write the broker as mqtts://\(url.host)")
          valid = false
        } else if !FileManager.default.isReadableFile(atPath: file) {
          error(node, "mqtt.ca_file", "cannot read \(file)")
          valid = false
        } else {
          settings.caFile = file
        }
      } else {
        valid = false
      }
    }
    if let node = fields.value("base_topic") {
      if let base = baseTopic(node) { settings.baseTopic = base } else { valid = false }
    }
    if let node = fields.value("share_dnd") {
      if let share = bool(node, "mqtt.share_dnd") { settings.shareDoNotDisturb = share } else { valid = false }
    }
    if let node = fields.value("discovery") {
      if case .scalar(let scalar) = node, scalar.string == "false" || scalar.string == "off" {
        settings.discoveryPrefix = nil
      } else if let prefix = topicLevel(node, "mqtt.discovery") {
        settings.discoveryPrefix = prefix
      } else {
        valid = false
      }
    }
    if let node = fields.value("keepalive"), let keepalive = duration(node, "mqtt.keepalive") {
      if keepalive.ms < 5_000 || keepalive.ms > 3_600_000 {
        error(node, "mqtt.keepalive", "keepalive \(keepalive.text) is not between 5s and 1h")
        valid = false
      } else {
        settings.keepaliveSeconds = Int(keepalive.ms / 1_000)
      }
    }
    return valid ? settings : nil
  }

  /// `mqtt://host[:port]` or `mqtts://host[:port]`.
  private mutating func brokerURL(_ text: String, _ node: Node) -> (host: String, port: Int, tls: Bool)? {
    let schemes = ["mqtt", "mqtts"]
    guard let separator = text.firstRange(of: "://") else {
      error(node, "mqtt.broker", "'\(DisplayText.excerpt(text))' is not a broker URL; write mqtt://\(text)")
      return nil
    }
    let scheme = String(text[..<separator.lowerBound]).lowercased()
    guard schemes.contains(scheme) else {
      error(
        node, "mqtt.broker",
        "'\(DisplayText.excerpt(scheme))://' is not mqtt:// or mqtts://\(Suggestion.hint(for: scheme, in: schemes))")
      return nil
    }
    var rest = Substring(text[separator.upperBound...])
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    guard !rest.contains("@") else {
      error(
        node, "mqtt.broker",
        "'\(DisplayText.excerpt(text))' carries credentials; put the user in 'user:' and the password in 'password_file:'"
      )
      return nil
    }
    var host = rest
    var port = scheme == "mqtts" ? 8883 : 1883
    if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
      host = rest[..<colon]
      guard let number = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(number) else {
        error(node, "mqtt.broker", "'\(DisplayText.excerpt(String(rest)))' has no port from 1 to 65535 after ':'")
        return nil
      }
      port = number
    }
    if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
    guard !host.isEmpty, !host.contains("/") else {
      error(
        node, "mqtt.broker",
        "'\(DisplayText.excerpt(text))' needs a host and nothing else, e.g. mqtt://broker.local:1883")
      return nil
    }
    return (String(host), port, scheme == "mqtts")
  }

  /// One topic level CallAlert names things with: `a-z`, `0-9`, `-`, `_`, up to 64.
  private mutating func topicLevel(_ node: Node, _ field: String) -> String? {
    guard let text = nonEmptyText(node, field) else { return nil }
    guard text.count <= 64, text.allSatisfy(MQTTSettings.isNodeCharacter) else {
      error(node, field, "'\(DisplayText.excerpt(text))' is not a topic name; use up to 64 of a-z, 0-9, '-' and '_'")
      return nil
    }
    return text
  }

  /// The base topic: levels of `topicLevel`'s characters (and upper case), separated by `/`.
  private mutating func baseTopic(_ node: Node) -> String? {
    guard let text = nonEmptyText(node, "mqtt.base_topic") else { return nil }
    let levels = text.split(separator: "/", omittingEmptySubsequences: false)
    guard text.utf8.count <= 128,
      levels.allSatisfy({ level in
        !level.isEmpty && level.allSatisfy { MQTTSettings.isNodeCharacter(Character($0.lowercased())) }
      })
    else {
      error(
        node, "mqtt.base_topic",
        "'\(DisplayText.excerpt(text))' is not a base topic; use levels of letters, digits, '-' and '_' joined by '/' (no '+', '#' or empty level)"
      )
      return nil
    }
    return text
  }
}
