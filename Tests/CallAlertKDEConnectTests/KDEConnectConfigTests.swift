import CallAlertInputs
import CallAlertText
import CallAlertValues
import Testing

/// The `kdeconnect:` section: defaults, every key, and errors at file:line:column.
@Suite struct KDEConnectConfigTests {
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

  @Test func aBareSectionTakesTheDefaults() throws {
    let settings = try #require(
      try parse("history:\n  path: /var/lib/callalert/history.sqlite\nkdeconnect:\n").kdeConnect)
    #expect(settings.stateDirectory == "/var/lib/callalert/kdeconnect")
    #expect(settings.discoveryPort == 1_716 && settings.tcpPorts == 1_716...1_764 && settings.broadcast)
    #expect(settings.listen == "0.0.0.0" && settings.muteOnAcknowledge && settings.announceEverySeconds == 60)
    #expect(!settings.name.isEmpty)
    #expect(try parse("cap: 20s\n").kdeConnect == nil)
  }

  @Test func everyKeyIsRead() throws {
    let settings = try #require(
      try parse(
        """
        kdeconnect:
          name: Bedroom
          state_dir: ~/phones
          listen: 192.0.2.10
          discovery_port: 1716
          tcp_ports: 1720-1730
          broadcast: false
          peers: [192.0.2.20, "192.0.2.21:1716"]
          announce_every: 5m
          mute_on_ack: false
        """
      ).kdeConnect)
    #expect(
      settings.name == "Bedroom" && settings.stateDirectory == "/home/u/phones" && settings.listen == "192.0.2.10")
    #expect(
      settings.tcpPorts == 1_720...1_730 && !settings.broadcast && settings.peers == ["192.0.2.20", "192.0.2.21:1716"])
    #expect(settings.announceEverySeconds == 300 && !settings.muteOnAcknowledge)
  }

  @Test(arguments: [
    ("kdeconnect:\n  nam: x\n", "/tmp/c.yaml:2:3: kdeconnect.nam: unknown key"),
    ("kdeconnect:\n  name: \"Bob's phone\"\n", "/tmp/c.yaml:2:9: kdeconnect.name: 'Bob's phone' cannot be shown"),
    (
      "kdeconnect:\n  tcp_ports: 1764-1716\n",
      "/tmp/c.yaml:2:14: kdeconnect.tcp_ports: '1764-1716' is not a port or a range"
    ),
    (
      "kdeconnect:\n  peers: [phone.local]\n",
      "/tmp/c.yaml:2:11: kdeconnect.peers: 'phone.local' is not an IPv4 address"
    ),
    ("kdeconnect:\n  listen: everywhere\n", "/tmp/c.yaml:2:11: kdeconnect.listen: 'everywhere' is not an IPv4 address"),
    (
      "kdeconnect:\n  announce_every: 100ms\n",
      "/tmp/c.yaml:2:19: kdeconnect.announce_every: 100ms is not between 1s and 1h"
    ),
    (
      "kdeconnect:\n  discovery_port: 70000\n",
      "/tmp/c.yaml:2:19: kdeconnect.discovery_port: '70000' is not a whole number"
    ),
  ])
  func mistakesAreRefusedWithTheirPlace(yaml: String, expected: String) {
    let problem = error(yaml)
    #expect(problem.hasPrefix(expected), "\(problem)")
  }
}
