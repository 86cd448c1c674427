import CallAlertEngine
import CallAlertText
import CallAlertValues
internal import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The `sip:` section: ring extensions that register to a phone system and ring while an INVITE rings
/// (docs/SIP.md).
extension ConfigParser {
  /// The keys of the section.
  static let sipKeys = ["accounts"]
  /// The keys of an account.
  static let sipAccountKeys = [
    "name", "registrar", "domain", "user", "auth_user", "password_file", "transport", "expiry", "outbound_proxy",
    "local_address", "local_port", "keepalive", "verify_tls", "ca_directory", "rules", "trusted",
  ]

  /// Reads the section; nil (with errors recorded) when any account is wrong. `sourceNames` are the `sources:`
  /// names, which an account's may not repeat: both start call ids and name entries in `status`.
  mutating func sip(_ node: Node, region: String, boardNames: [String]?, sourceNames: [String]) -> [SIPAccount]? {
    guard let fields = mapping(node, "sip", example: "'accounts:' with a list such as '- name: ring'") else {
      return nil
    }
    checkKeys(fields, allowed: Self.sipKeys, "sip")
    guard let list = fields.value("accounts") else { return [] }
    var ports: [Int: Int] = [:]
    return namedItems(
      list, "sip.accounts", noun: "account",
      example: (
        "a list of accounts such as '- name: ring' with 'registrar:' and 'user:'",
        "'name: ring', 'registrar: pbx.local' and 'user: \"201\"'"
      ), allowed: Self.sipAccountKeys, name: \.name,
      read: { parser, fields, item, path in
        parser.sipAccount(fields, item, path, region: region, boardNames: boardNames)
      },
      extra: { parser, account, index, fields, item, path in
        var valid = true
        if sourceNames.contains(account.name) {
          parser.error(
            fields.value("name") ?? item, "\(path).name",
            "account name '\(DisplayText.excerpt(account.name))' is already the name of a source in 'sources:'; "
              + "names start call ids and must be unique")
          valid = false
        }
        if let port = account.localPort {
          if let first = ports[port] {
            parser.error(
              fields.value("local_port") ?? item, "\(path).local_port",
              "local port \(port) is already used by sip.accounts[\(first)]; give each account its own port")
            valid = false
          } else {
            ports[port] = index
          }
        }
        return valid
      })
  }

  private mutating func sipAccount(
    _ fields: [YAMLEntry], _ item: Node, _ path: String, region: String, boardNames: [String]?
  ) -> SIPAccount? {
    var valid = true
    func optionalText(_ key: String) -> String? {
      guard let node = fields.value(key) else { return nil }
      guard let text = nonEmptyText(node, "\(path).\(key)") else {
        valid = false
        return nil
      }
      return text
    }
    var name: String?
    if let node = fields.value("name") {
      name = nonEmptyText(node, "\(path).name")
      if let text = name,
        !text.unicodeScalars.allSatisfy({
          $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
        }) || text.utf8.count > 32
      {
        error(
          node, "\(path).name",
          "'\(DisplayText.excerpt(text))' is not an account name; use up to 32 letters, digits, '-', '_' or '.' (it starts call ids)"
        )
        name = nil
      }
    } else {
      error(item, "\(path).name", "an account needs 'name:' (used in status, logs and call ids)")
    }
    var user: String?
    if let node = fields.value("user") {
      user = nonEmptyText(node, "\(path).user")
      if let text = user, text.contains(where: { $0 == "@" || $0 == ":" || $0 == " " || $0 == ";" }) {
        error(
          node, "\(path).user",
          "'\(DisplayText.excerpt(text))' is not a SIP user; write only the user part, e.g. \"201\"")
        user = nil
      }
    } else {
      error(item, "\(path).user", "an account needs 'user:' (the extension's number or name, e.g. \"201\")")
    }
    let registrar = optionalText("registrar")
    let domain = optionalText("domain")
    let authUser = optionalText("auth_user")
    let outboundProxy = optionalText("outbound_proxy")
    let localAddress = optionalText("local_address")
    var passwordFile: String?
    if let node = fields.value("password_file") {
      passwordFile = self.path(node, "\(path).password_file")
      if passwordFile == nil { valid = false }
    }
    var transport = SIPTransport.udp
    if let node = fields.value("transport") {
      if let chosen = choice(node, "\(path).transport", SIPTransport.allCases.map { ($0.rawValue, $0) }) {
        transport = chosen
      } else {
        valid = false
      }
    }
    var expiry = SIPAccount.defaultExpirySeconds
    if let node = fields.value("expiry") {
      if let read = duration(node, "\(path).expiry") {
        if read.ms < 60_000 || read.ms > 86_400_000 {
          error(node, "\(path).expiry", "expiry \(read.text) is outside 60s to 24h; registrars refuse shorter ones")
          valid = false
        } else {
          expiry = Int(read.ms / 1_000)
        }
      } else {
        valid = false
      }
    }
    var keepalive = SIPAccount.defaultKeepaliveSeconds
    if let node = fields.value("keepalive") {
      if let read = duration(node, "\(path).keepalive") {
        if read.ms < 5_000 || read.ms > 3_600_000 {
          error(node, "\(path).keepalive", "keepalive \(read.text) is outside 5s to 1h")
          valid = false
        } else {
          keepalive = Int(read.ms / 1_000)
        }
      } else {
        valid = false
      }
    }
    var localPort: Int?
    if let node = fields.value("local_port") {
      localPort = integer(node, "\(path).local_port", in: 1...65_535)
      if localPort == nil { valid = false }
    }
    var verifyTLS = true
    if let node = fields.value("verify_tls") {
      if let read = bool(node, "\(path).verify_tls") { verifyTLS = read } else { valid = false }
    }
    var certificateDirectory: String?
    if let node = fields.value("ca_directory") {
      certificateDirectory = self.path(node, "\(path).ca_directory")
      if certificateDirectory == nil { valid = false }
    }
    if registrar == nil, passwordFile != nil, let entry = fields.first(where: { $0.key == "password_file" }) {
      error(entry.keyNode, "\(path).password_file", "a password is for a registrar; add 'registrar:' or remove it")
      valid = false
    }
    if registrar == nil && domain == nil && localAddress == nil {
      error(
        item, path,
        "an account needs 'registrar:' (the PBX, FRITZ!Box or provider it registers to), or 'local_address:' for "
          + "INVITEs sent straight to it")
      valid = false
    }
    var trusted: [AddressRange] = []
    if let node = fields.value("trusted") {
      if let items = stringList(node, "\(path).trusted", example: "[192.0.2.10, 198.51.100.0/24]") {
        for (index, item) in items.enumerated() {
          if let range = AddressRange(parsing: item.text) {
            trusted.append(range)
          } else {
            error(
              item.node, "\(path).trusted[\(index)]",
              "'\(DisplayText.excerpt(item.text))' is not an IP address or CIDR block such as 192.0.2.10 or "
                + "192.0.2.0/24 (names are not resolved here: a name's addresses can change)")
            valid = false
          }
        }
      } else {
        valid = false
      }
    }
    if registrar == nil, trusted.isEmpty, valid {
      error(
        fields.value("trusted") ?? item, "\(path).trusted",
        "an account without 'registrar:' answers INVITEs sent straight to it, so it must say whose: list them in "
          + "'trusted:' (addresses or CIDR blocks, e.g. [192.0.2.10]); every other sender gets 403")
      valid = false
    }
    var rules: [BridgeFilter] = []
    if let node = fields.value("rules") {
      if let read = filters(node, "\(path).rules", region: region, boardNames: boardNames) {
        rules = read
        for (index, rule) in read.enumerated() where !rule.lines.isEmpty || !rule.extensions.isEmpty {
          error(
            node, "\(path).rules[\(index)]",
            "'lines:' and 'extensions:' are for sources; a SIP rule matches 'called:' (the To or Request-URI user) and 'callers:'"
          )
          valid = false
        }
      } else {
        valid = false
      }
    }
    guard valid, let name, let user else { return nil }
    return SIPAccount(
      name: name, registrar: registrar, domain: domain, user: user, authUser: authUser, passwordFile: passwordFile,
      transport: transport, expirySeconds: expiry, outboundProxy: outboundProxy, localAddress: localAddress,
      localPort: localPort, keepaliveSeconds: keepalive, verifyTLS: verifyTLS,
      certificateDirectory: certificateDirectory, rules: rules, trusted: trusted)
  }
}
