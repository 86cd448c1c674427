import CallAlertText
import CallAlertValues
internal import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The `kdeconnect:` section: this host as a KDE Connect device, for phones' calls (docs/PHONE.md).
extension ConfigParser {
  /// The keys of the section.
  static let kdeConnectKeys = [
    "name", "state_dir", "listen", "discovery_port", "tcp_ports", "broadcast", "peers", "announce_every",
    "mute_on_ack",
  ]

  /// Reads the section (an empty one, `kdeconnect: {}`, takes every default); nil with errors recorded when
  /// anything in it is wrong. `historyPath` places the default state folder beside the history.
  mutating func kdeConnect(_ node: Node, historyPath: String) -> KDEConnectSettings? {
    let stateDirectory = PathText.deletingLastComponent(historyPath) + "/kdeconnect"
    var settings = KDEConnectSettings(name: Self.defaultKDEConnectName(), stateDirectory: stateDirectory)
    if isNull(node) { return settings }
    guard let fields = mapping(node, "kdeconnect", example: "'name: Bedroom'") else { return nil }
    checkKeys(fields, allowed: Self.kdeConnectKeys, "kdeconnect")
    var valid = true
    if let node = fields.value("name") {
      if let name = nonEmptyText(node, "kdeconnect.name") {
        let refused = Set("\"',;:.!?()[]<>")
        if name.contains(where: { refused.contains($0) }) || name.count > 32 {
          error(
            node, "kdeconnect.name",
            "'\(DisplayText.excerpt(name))' cannot be shown by KDE Connect: at most 32 characters, none of \"',;:.!?()[]<>"
          )
          valid = false
        } else {
          settings.name = name
        }
      } else {
        valid = false
      }
    }
    if let node = fields.value("state_dir") {
      if let path = path(node, "kdeconnect.state_dir") { settings.stateDirectory = path } else { valid = false }
    }
    if let node = fields.value("listen") {
      if let address = nonEmptyText(node, "kdeconnect.listen"), Self.isIPv4(address) {
        settings.listen = address
      } else {
        if let text = node.scalar?.string, !text.isEmpty {
          error(node, "kdeconnect.listen", "'\(DisplayText.excerpt(text))' is not an IPv4 address such as 0.0.0.0")
        }
        valid = false
      }
    }
    if let node = fields.value("discovery_port") {
      if let port = integer(node, "kdeconnect.discovery_port", in: 1...65_535) {
        settings.discoveryPort = port
      } else {
        valid = false
      }
    }
    if let node = fields.value("tcp_ports") {
      if let ports = portRange(node) { settings.tcpPorts = ports } else { valid = false }
    }
    if let node = fields.value("broadcast") {
      if let flag = bool(node, "kdeconnect.broadcast") { settings.broadcast = flag } else { valid = false }
    }
    if let node = fields.value("peers") {
      if let items = sequence(node, "kdeconnect.peers", example: "a list of addresses such as '- 192.0.2.20'") {
        for item in items {
          guard let text = nonEmptyText(item, "kdeconnect.peers") else {
            valid = false
            continue
          }
          let parts = text.split(separator: ":", omittingEmptySubsequences: false)
          let portOK = parts.count == 1 || (parts.count == 2 && Int(parts[1]).map { (1...65_535).contains($0) } == true)
          if parts.count <= 2, Self.isIPv4(String(parts[0])), portOK {
            settings.peers.append(text)
          } else {
            error(
              item, "kdeconnect.peers", "'\(DisplayText.excerpt(text))' is not an IPv4 address, with or without :port")
            valid = false
          }
        }
      } else {
        valid = false
      }
    }
    if let node = fields.value("announce_every"), let every = duration(node, "kdeconnect.announce_every") {
      if every.ms < 1_000 || every.ms > 3_600_000 {
        error(node, "kdeconnect.announce_every", "\(every.text) is not between 1s and 1h")
        valid = false
      } else {
        settings.announceEverySeconds = Int(every.ms / 1_000)
      }
    }
    if let node = fields.value("mute_on_ack") {
      if let flag = bool(node, "kdeconnect.mute_on_ack") { settings.muteOnAcknowledge = flag } else { valid = false }
    }
    return valid ? settings : nil
  }

  /// `1716-1764`, or one port.
  private mutating func portRange(_ node: Node) -> ClosedRange<Int>? {
    guard let text = nonEmptyText(node, "kdeconnect.tcp_ports") else { return nil }
    let parts = text.split(separator: "-").map { Int($0.trimmingWhitespace()) }
    guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil, low <= high,
      (1...65_535).contains(low), (1...65_535).contains(high)
    else {
      error(node, "kdeconnect.tcp_ports", "'\(DisplayText.excerpt(text))' is not a port or a range such as 1716-1764")
      return nil
    }
    return low...high
  }

  private static func isIPv4(_ text: String) -> Bool {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts.allSatisfy { part in Int(part).map { (0...255).contains($0) } == true }
  }

  /// The host's name as KDE Connect may show it.
  static func defaultKDEConnectName() -> String {
    let refused = Set("\"',;:.!?()[]<>")
    let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "CallAlert"
    let name = String(host.filter { !refused.contains($0) }.prefix(32))
    return name.isEmpty ? "CallAlert" : name
  }
}
