import CallAlertBridges
import CallAlertEngine
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

/// The `sources:` section: phone systems the daemon listens to (docs/SOURCES.md).
extension ConfigParser {
  /// The keys of a source.
  static let sourceKeys = [
    "name", "kind", "host", "port", "username", "secret_file", "endpoints", "extensions", "filters",
  ]
  /// The keys only an AMI source has.
  static let amiOnlyKeys = ["username", "secret_file", "endpoints", "extensions"]
  /// The keys of a filter.
  static let filterKeys = ["called", "lines", "extensions", "callers", "boards", "pattern", "ignore"]

  /// Reads the list; nil (with errors recorded) when any source is wrong. `region` reads the filters' caller
  /// numbers; `boardNames` (nil when the boards section is broken) checks the boards they name.
  mutating func sources(_ node: Node, region: String, boardNames: [String]?) -> [BridgeSource]? {
    namedItems(
      node, "sources", noun: "source",
      example: (
        "a list of sources such as '- name: box' with 'kind: fritzbox' and 'host: fritz.box'",
        "'name: box', 'kind: fritzbox' and 'host: fritz.box'"
      ), allowed: Self.sourceKeys, name: \.name,
      read: { parser, fields, item, path in
        parser.source(fields, item, path, region: region, boardNames: boardNames)
      })
  }

  private mutating func source(
    _ fields: [YAMLEntry], _ item: Node, _ path: String, region: String, boardNames: [String]?
  ) -> BridgeSource? {
    var valid = true
    var name: String?
    if let node = fields.value("name") {
      name = nonEmptyText(node, "\(path).name")
      if let text = name,
        !text.unicodeScalars.allSatisfy({
          $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
        })
          || text.utf8.count > 32
      {
        error(
          node, "\(path).name",
          "'\(DisplayText.excerpt(text))' is not a source name; use up to 32 letters, digits, '-', '_' or '.' (it starts call ids)"
        )
        name = nil
      }
    } else {
      error(item, "\(path).name", "a source needs 'name:' (used in status, logs and call ids)")
    }
    var kind: BridgeKind?
    if let node = fields.value("kind") {
      kind = choice(node, "\(path).kind", BridgeKind.allCases.map { ($0.rawValue, $0) })
    } else {
      error(item, "\(path).kind", "a source needs 'kind: fritzbox' or 'kind: ami'")
    }
    var host: String?
    if let node = fields.value("host") {
      host = nonEmptyText(node, "\(path).host")
    } else {
      error(item, "\(path).host", "a source needs 'host:' (e.g. fritz.box, 192.168.178.1 or pbx.local)")
    }
    var port: Int?
    if let node = fields.value("port") {
      port = integer(node, "\(path).port", in: 1...65_535)
      if port == nil { valid = false }
    }
    var username: String?
    var secretFile: String?
    var endpoints: [String] = []
    var extensions: [String] = []
    if kind == .fritzbox {
      for key in Self.amiOnlyKeys {
        if let entry = fields.first(where: { $0.key == key }) {
          error(entry.keyNode, "\(path).\(key)", "'\(key)' is for kind: ami; a FRITZ!Box call monitor needs no login")
          valid = false
        }
      }
    } else if kind == .ami {
      if let node = fields.value("username") {
        username = nonEmptyText(node, "\(path).username")
      } else {
        error(item, "\(path).username", "an AMI source needs 'username:' (the [user] of manager.conf)")
      }
      if let node = fields.value("secret_file") {
        secretFile = self.path(node, "\(path).secret_file")
        if let file = secretFile {
          do {
            _ = try SecretFile.read(file, holding: "the AMI secret")
          } catch {
            self.error(node, "\(path).secret_file", error.description)
            valid = false
          }
        }
      } else {
        error(
          item, "\(path).secret_file", "an AMI source needs 'secret_file:' (a file holding the secret, mode 0600)")
      }
      if let node = fields.value("endpoints") {
        endpoints = (stringList(node, "\(path).endpoints", example: "[PJSIP/201]") ?? []).map(\.text)
      }
      if let node = fields.value("extensions") {
        extensions = (stringList(node, "\(path).extensions", example: "[201@ext-local]") ?? []).map(\.text)
      }
      if endpoints.isEmpty && extensions.isEmpty {
        error(
          item, path,
          "an AMI source needs 'endpoints:' (e.g. [PJSIP/201]) or 'extensions:' (e.g. [201@ext-local]) to watch")
        valid = false
      }
    }
    var filters: [BridgeFilter] = []
    if let node = fields.value("filters") {
      if let read = self.filters(node, "\(path).filters", region: region, boardNames: boardNames) {
        filters = read
      } else {
        valid = false
      }
    }
    guard valid, let name, let kind, let host, kind != .ami || (username != nil && secretFile != nil) else {
      return nil
    }
    return BridgeSource(
      name: name, kind: kind, host: host, port: port, username: username, secretFile: secretFile,
      endpoints: endpoints, extensions: extensions, filters: filters)
  }

  mutating func filters(
    _ node: Node, _ field: String, region: String, boardNames: [String]?
  ) -> [BridgeFilter]? {
    guard let items = sequence(node, field, example: "a list such as '- lines: [SIP0]' with 'boards: [desk]'") else {
      return nil
    }
    var filters: [BridgeFilter] = []
    var valid = true
    for (index, item) in items.enumerated() {
      let path = "\(field)[\(index)]"
      guard let fields = mapping(item, path, example: "'called:', 'lines:', 'extensions:', 'callers:', 'boards:'")
      else {
        valid = false
        continue
      }
      checkKeys(fields, allowed: Self.filterKeys, path)
      var filter = BridgeFilter()
      func list(_ key: String, _ example: String) -> [(text: String, node: Node)]? {
        guard let node = fields.value(key) else { return [] }
        return stringList(node, "\(path).\(key)", example: example)
      }
      guard let called = list("called", "[\"030 1234567\"]"), let lines = list("lines", "[SIP0, POTS]"),
        let extensions = list("extensions", "[PJSIP/201]"), let callers = list("callers", "[\"+49 30 1234567\"]"),
        let boards = list("boards", "[desk]")
      else {
        valid = false
        continue
      }
      filter.called = called.map(\.text)
      filter.lines = lines.map(\.text)
      filter.extensions = extensions.map(\.text)
      for (offset, caller) in callers.enumerated() {
        guard let e164 = PhoneNumber.e164(caller.text, defaultRegion: region) else {
          error(
            caller.node, "\(path).callers[\(offset)]",
            "'\(DisplayText.excerpt(caller.text))' is not a phone number CallAlert can read (region \(region)); "
              + "write it with its country code, e.g. +49 30 1234567")
          valid = false
          continue
        }
        filter.callers.append(e164)
      }
      for (offset, board) in boards.enumerated() {
        if let boardNames, !boardNames.contains(board.text) {
          error(
            board.node, "\(path).boards[\(offset)]",
            "unknown board '\(DisplayText.excerpt(board.text))'\(Suggestion.hint(for: board.text, in: boardNames)); "
              + "boards are " + boardNames.joined(separator: ", "))
          valid = false
        }
        filter.boards.append(board.text)
      }
      if let node = fields.value("pattern") {
        filter.pattern = nonEmptyText(node, "\(path).pattern")
        if filter.pattern == nil { valid = false }
      }
      if let node = fields.value("ignore") {
        guard let ignore = bool(node, "\(path).ignore") else {
          valid = false
          continue
        }
        filter.ignore = ignore
      }
      filters.append(filter)
    }
    return valid ? filters : nil
  }
}
