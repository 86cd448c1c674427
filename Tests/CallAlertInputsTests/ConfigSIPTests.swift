import CallAlertInputs
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// The `sip:` section (docs/SIP.md): its examples parse to what they say, and every mistake is an error at its
/// place.
@Suite struct ConfigSIPTests {
  static let folder = FileManager.default.temporaryDirectory.path + "/sip-config"

  static func parse(_ text: String) throws(InputErrors) -> DaemonConfiguration {
    try ConfigurationFile.parse(text: text, file: folder + "/config.yaml", environment: testEnvironment, userID: 1000)
  }

  static func errors(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    do {
      _ = try parse(text)
      Issue.record("expected errors, the config parsed", sourceLocation: sourceLocation)
      return []
    } catch {
      return error.errors.map { "\($0)".replacingOccurrences(of: folder + "/", with: "") }
    }
  }

  @Test func theDocumentedExamplesParse() throws {
    let blocks = codeBlocks(try documentText("SIP.md"), language: "yaml")
    #expect(blocks.count == 4)
    let configs = try blocks.map { try Self.parse($0.text) }
    let home = testEnvironment["HOME"] ?? ""
    #expect(
      configs[0].sipAccounts == [
        SIPAccount(
          name: "pbx", registrar: "pbx.local", user: "290", passwordFile: home + "/.config/callalert/sip.secret")
      ])
    #expect(configs[1].sipAccounts[0].registrar == "fritz.box")
    #expect(
      configs[2].sipAccounts == [
        SIPAccount(
          name: "provider", registrar: "sipconnect.sipgate.de", domain: "sipgate.de", user: "1234567e0",
          authUser: "1234567e0", passwordFile: home + "/.config/callalert/sipgate.secret", transport: .tls,
          expirySeconds: 300, keepaliveSeconds: 25)
      ])
    #expect(configs[2].sipAccounts[0].addressOfRecord == "sips:1234567e0@sipgate.de")
    #expect(configs[2].sipAccounts[0].registrarURI == "sips:sipconnect.sipgate.de")
    #expect(
      configs[3].sipAccounts[0].rules == [
        BridgeFilter(called: ["5551"], pattern: "sales"), BridgeFilter(called: ["5552"], boards: ["workshop"]),
        BridgeFilter(callers: ["+49301234567"], pattern: "family"), BridgeFilter(called: ["5559"], ignore: true),
        BridgeFilter(),
      ])
    #expect(configs[3].sipAccounts[0].passwordFile == Self.folder + "/sip.secret")
  }

  @Test(arguments: [
    (
      "sip:\n  accounts:\n    - name: pbx\n      registrar: pbx\n      user: \"290\"\n      transport: tsl\n",
      "config.yaml:6:18: sip.accounts[0].transport: 'tsl' is not one of udp, tcp, tls; did you mean 'tls'?"
    ),
    (
      "sip:\n  accounts:\n    - name: pbx\n      registrar: pbx\n",
      "config.yaml:3:7: sip.accounts[0].user: an account needs 'user:'"
    ),
    (
      "sip:\n  accounts:\n    - name: pbx\n      user: \"290\"\n",
      "config.yaml:3:7: sip.accounts[0]: an account needs 'registrar:'"
    ),
    (
      "sip:\n  accounts:\n    - name: pbx\n      registrar: pbx\n      user: \"290\"\n      expiry: 10s\n",
      "config.yaml:6:15: sip.accounts[0].expiry: expiry 10s is outside 60s to 24h"
    ),
    (
      "sip:\n  accounts:\n    - name: pbx\n      registrar: pbx\n      user: \"290\"\n      regsitrar: x\n",
      "config.yaml:6:7: sip.accounts[0].regsitrar: unknown key 'regsitrar' in sip.accounts[0]; did you mean 'registrar'?"
    ),
    (
      "sip:\n  accounts:\n    - name: pbx\n      registrar: pbx\n      user: 290@pbx\n",
      "config.yaml:5:13: sip.accounts[0].user: '290@pbx' is not a SIP user"
    ),
    (
      "sip:\n  accounts:\n    - {name: a, registrar: p, user: \"1\", local_port: 5070}\n    - {name: b, registrar: p, user: \"2\", local_port: 5070}\n",
      "config.yaml:4:54: sip.accounts[1].local_port: local port 5070 is already used by sip.accounts[0]"
    ),
    (
      "sip:\n  accounts:\n    - {name: a, registrar: p, user: \"1\"}\n    - {name: a, registrar: p, user: \"2\"}\n",
      "config.yaml:4:14: sip.accounts[1].name: account name 'a' is already used by sip.accounts[0]; names must be unique"
    ),
    (
      "boards:\n  - name: desk\nsip:\n  accounts:\n    - name: pbx\n      registrar: pbx\n      user: \"290\"\n      rules:\n        - boards: [dsk]\n",
      "config.yaml:9:20: sip.accounts[0].rules[0].boards[0]: unknown board 'dsk'; did you mean 'desk'?"
    ),
    (
      "sources:\n  - name: pbx\n    kind: fritzbox\n    host: h\nsip:\n  accounts:\n    - name: pbx\n      registrar: p\n      user: \"1\"\n",
      "config.yaml:7:13: sip.accounts[0].name: account name 'pbx' is already the name of a source in 'sources:'"
    ),
    (
      "sip:\n  accounts:\n    - name: direct\n      user: \"290\"\n      local_address: 127.0.0.1\n",
      "config.yaml:3:7: sip.accounts[0].trusted: an account without 'registrar:' answers INVITEs sent straight to it, so it must say whose"
    ),
    (
      "sip:\n  accounts:\n    - name: direct\n      user: \"290\"\n      local_address: 127.0.0.1\n      trusted: []\n",
      "config.yaml:6:16: sip.accounts[0].trusted: an account without 'registrar:'"
    ),
    (
      "sip:\n  accounts:\n    - name: pbx\n      registrar: pbx\n      user: \"290\"\n      trusted: [10.0.0.1, pbx2.local, 10.0.0.0/33]\n",
      "config.yaml:6:27: sip.accounts[0].trusted[1]: 'pbx2.local' is not an IP address or CIDR block"
    ),
    (
      "sip:\n  accounts:\n    - name: pbx\n      registrar: pbx\n      user: \"290\"\n      trusted: [10.0.0.0/33]\n",
      "config.yaml:6:17: sip.accounts[0].trusted[0]: '10.0.0.0/33' is not an IP address or CIDR block"
    ),
    (
      "sip:\n  acounts: []\n",
      "config.yaml:2:3: sip.acounts: unknown key 'acounts' in sip; did you mean 'accounts'?"
    ),
  ])
  func aMistakeIsAnErrorAtItsPlace(yaml: String, expected: String) {
    let errors = Self.errors(yaml)
    #expect(errors.contains { $0.hasPrefix(expected) }, "\(errors)")
  }
  @Test func trustedSourcesAreAddressesAndBlocks() throws {
    let config = try Self.parse(
      "sip:\n  accounts:\n    - name: direct\n      user: \"290\"\n      local_address: 127.0.0.1\n"
        + "      trusted: [127.0.0.1, 192.168.178.0/24, \"2001:db8::/32\"]\n")
    #expect(config.sipAccounts[0].trusted.map(\.description) == ["127.0.0.1", "192.168.178.0/24", "2001:db8::/32"])
  }
}

/// Addresses and CIDR blocks as a SIP account's `trusted:` takes them.
@Suite struct AddressRangeTests {
  @Test func blocksContainTheirAddressesOnly() throws {
    let block = try #require(AddressRange(parsing: "192.168.178.0/24"))
    #expect(block.contains("192.168.178.1"))
    #expect(block.contains("192.168.178.255"))
    #expect(!block.contains("192.168.179.1"))
    #expect(!block.contains("not an address"))
    // The bits past the prefix are cleared, so a host written with its prefix is its network.
    #expect(AddressRange(parsing: "10.1.2.3/8")?.description == "10.0.0.0/8")
    #expect(AddressRange(parsing: "10.1.2.3/12")?.contains("10.15.0.1") == true)
    #expect(AddressRange(parsing: "10.1.2.3/12")?.contains("10.16.0.1") == false)
  }

  @Test func ipv6AndMappedAddresses() throws {
    let v6 = try #require(AddressRange(parsing: "2001:db8::/32"))
    #expect(v6.contains("2001:db8:1::5"))
    #expect(v6.contains("[2001:db8::1]"))
    #expect(!v6.contains("2001:db9::1"))
    #expect(!v6.contains("192.0.2.1"))
    // An IPv4 peer seen on a dual-stack socket is its IPv4 address.
    #expect(AddressRange(parsing: "192.0.2.1")?.contains("::ffff:192.0.2.1") == true)
    #expect(AddressRange(parsing: "fe80::1%eth0")?.contains("fe80::1") == true)
  }

  @Test(arguments: ["", "pbx.local", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "::/129", "1.2.3"])
  func notARange(_ text: String) {
    #expect(AddressRange(parsing: text) == nil)
  }
}
