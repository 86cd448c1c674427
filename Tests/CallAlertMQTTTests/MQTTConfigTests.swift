import CallAlertInputs
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// The `mqtt:` section of the config: defaults, and errors at file:line:column with what to write instead.
@Suite("MQTT config")
struct MQTTConfigTests {
  func parse(_ yaml: String) throws(InputErrors) -> DaemonConfiguration {
    try ConfigurationFile.parse(text: yaml, file: "/tmp/c.yaml", environment: ["HOME": "/home/u"], userID: 1_000)
  }

  func error(_ yaml: String) -> String {
    do {
      _ = try parse(yaml)
      return "no error"
    } catch {
      return error.description
    }
  }

  @Test func aBrokerAloneTakesTheDefaults() throws {
    let mqtt = try #require(try parse("mqtt:\n  broker: mqtt://broker.local\n  node_id: upstairs\n").mqtt)
    #expect(mqtt.host == "broker.local" && mqtt.port == 1883 && !mqtt.tls)
    #expect(mqtt.baseTopic == "callalert" && mqtt.clientID == "callalert-upstairs")
    #expect(mqtt.shareDoNotDisturb && mqtt.discoveryPrefix == "homeassistant")
    #expect(try parse("cap: 20s\n").mqtt == nil)
  }

  @Test func everyFieldIsRead() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "mqtt-config-\(UUID().uuidString.prefix(8))"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let password = directory + "/password"
    try "s3cret\n".write(toFile: password, atomically: false, encoding: .utf8)
    chmod(password, 0o600)
    let ca = directory + "/ca.pem"
    try "-----BEGIN CERTIFICATE-----\n".write(toFile: ca, atomically: false, encoding: .utf8)
    let mqtt = try #require(
      try parse(
        """
        mqtt:
          broker: mqtts://broker.local:8884
          client_id: house-1
          user: callalert
          password_file: \(password)
          ca_file: \(ca)
          base_topic: home/alerts
          node_id: workshop
          share_dnd: false
          discovery: ha
          keepalive: 10s
        """
      ).mqtt)
    #expect(mqtt.host == "broker.local" && mqtt.port == 8884 && mqtt.tls)
    #expect(mqtt.clientID == "house-1" && mqtt.username == "callalert" && mqtt.passwordFile == password)
    #expect(mqtt.caFile == ca && mqtt.baseTopic == "home/alerts" && mqtt.nodeID == "workshop")
    #expect(!mqtt.shareDoNotDisturb && mqtt.discoveryPrefix == "ha" && mqtt.keepaliveSeconds == 10)
    #expect(try parse("mqtt:\n  broker: mqtt://b\n  discovery: false\n").mqtt?.discoveryPrefix == nil)
    chmod(password, 0o644)
    #expect(
      error("mqtt:\n  broker: mqtt://b\n  user: u\n  password_file: \(password)\n").hasPrefix(
        "/tmp/c.yaml:4:18: mqtt.password_file: password file \(password) may be read by others (mode 644)"))
  }

  @Test(arguments: [
    ("mqtt:\n  brokr: mqtt://b\n", "/tmp/c.yaml:2:3: mqtt.brokr: unknown key 'brokr' in mqtt; did you mean 'broker'?"),
    ("mqtt:\n  broker: http://b\n", "/tmp/c.yaml:2:11: mqtt.broker: 'http://' is not mqtt:// or mqtts://"),
    (
      "mqtt:\n  broker: mqt://b\n",
      "/tmp/c.yaml:2:11: mqtt.broker: 'mqt://' is not mqtt:// or mqtts://; did you mean 'mqtt'?"
    ),
    (
      "mqtt:\n  broker: broker.local\n",
      "/tmp/c.yaml:2:11: mqtt.broker: 'broker.local' is not a broker URL; write mqtt://broker.local"
    ),
    ("mqtt:\n  broker: mqtt://b:99999\n", "/tmp/c.yaml:2:11: mqtt.broker: 'b:99999' has no port from 1 to 65535"),
    ("mqtt:\n  broker: mqtt://u:p@b\n", "/tmp/c.yaml:2:11: mqtt.broker: 'mqtt://u:p@b' carries credentials"),
    ("mqtt:\n  node_id: a\n", "/tmp/c.yaml:2:3: mqtt.broker: the mqtt section needs 'broker:'"),
    (
      "mqtt:\n  broker: mqtt://b\n  node_id: Up Stairs\n",
      "/tmp/c.yaml:3:12: mqtt.node_id: 'Up Stairs' is not a topic name"
    ),
    (
      "mqtt:\n  broker: mqtt://b\n  base_topic: a/+/b\n",
      "/tmp/c.yaml:3:15: mqtt.base_topic: 'a/+/b' is not a base topic"
    ),
    (
      "mqtt:\n  broker: mqtt://b\n  ca_file: /etc/hostname\n",
      "/tmp/c.yaml:3:12: mqtt.ca_file: a CA file is for mqtts:// brokers"
    ),
    (
      "mqtt:\n  broker: mqtt://b\n  password_file: /nonexistent\n",
      "/tmp/c.yaml:3:18: mqtt.password_file: password file /nonexistent: No such file"
    ),
    (
      "mqtt:\n  broker: mqtt://b\n  keepalive: 1s\n",
      "/tmp/c.yaml:3:14: mqtt.keepalive: keepalive 1s is not between 5s and 1h"
    ),
    ("mqtt:\n  broker: mqtt://b\n  share_dnd: maybe\n", "/tmp/c.yaml:3:14: mqtt.share_dnd:"),
  ])
  func aWrongFieldIsNamedWithItsPlace(_ yaml: String, _ expected: String) {
    let message = error(yaml)
    #expect(message.hasPrefix(expected), "\(message)")
  }
}
