/// How a SIP account reaches its registrar.
public enum SIPTransport: String, CaseIterable, Equatable, Sendable {
  /// UDP (the default; NAT keepalives hold the binding open).
  case udp
  /// TCP: one connection, kept open.
  case tcp
  /// TLS over TCP (`sips:`); the registrar's certificate must verify unless `verify_tls: false`.
  case tls
}

/// One SIP ring extension: an entry of the config's `sip: accounts:` list (docs/SIP.md).
///
/// The extension registers to a phone system as its own user, is put in the ring or hunt group of the desk
/// phone, never answers, and rings the boards for as long as an INVITE to it rings.
public struct SIPAccount: Equatable, Sendable {
  /// The account's name in status, logs and call ids.
  public var name: String
  /// The registrar's host (a PBX, a FRITZ!Box, a provider's domain), with an optional `:port`; nil: the
  /// extension does not register and only answers INVITEs sent straight to it (a peer-to-peer trunk).
  public var registrar: String?
  /// The domain of the address of record (`sip:user@domain`); nil: the registrar's host.
  public var domain: String?
  /// The extension's user (`201`): the address of record's and the contact's user part.
  public var user: String
  /// The digest authentication user; nil: ``user``.
  public var authUser: String?
  /// The file holding the password (mode 0600 or 0400); nil: no authentication.
  public var passwordFile: String?
  /// How it talks to the registrar.
  public var transport: SIPTransport
  /// The registration's lifetime asked for, in seconds (refreshed before it ends).
  public var expirySeconds: Int
  /// A proxy every request goes through (`sbc.example.com:5060`); nil: none.
  public var outboundProxy: String?
  /// The local address to listen on; nil: every address.
  public var localAddress: String?
  /// The local port to listen on; nil: one the system chooses.
  public var localPort: Int?
  /// The NAT keepalive interval in seconds.
  public var keepaliveSeconds: Int
  /// TLS: whether the registrar's certificate must verify (default true).
  public var verifyTLS: Bool
  /// TLS: a directory of CA certificates (sofia-sip's `cafile.pem` in it); nil: sofia-sip's default.
  public var certificateDirectory: String?
  /// Which INVITEs ring which boards with which pattern, by the called number (To or Request-URI user) and
  /// the caller; the first that matches wins. Empty: every call rings with the pattern rules' choice.
  public var rules: [BridgeFilter]
  /// The sources besides the registrar that may send INVITE, CANCEL and BYE (an outbound proxy, a second PBX
  /// node, or in direct mode the peers that call it); everything else is refused with 403. Their
  /// P-Asserted-Identity and Remote-Party-ID are believed (RFC 3325's trust domain).
  public var trusted: [AddressRange]

  /// The default registration lifetime.
  public static let defaultExpirySeconds = 600
  /// The default NAT keepalive interval.
  public static let defaultKeepaliveSeconds = 30

  /// Creates an account.
  public init(
    name: String, registrar: String? = nil, domain: String? = nil, user: String, authUser: String? = nil,
    passwordFile: String? = nil, transport: SIPTransport = .udp, expirySeconds: Int = SIPAccount.defaultExpirySeconds,
    outboundProxy: String? = nil, localAddress: String? = nil, localPort: Int? = nil,
    keepaliveSeconds: Int = SIPAccount.defaultKeepaliveSeconds, verifyTLS: Bool = true,
    certificateDirectory: String? = nil, rules: [BridgeFilter] = [], trusted: [AddressRange] = []
  ) {
    self.name = name
    self.registrar = registrar
    self.domain = domain
    self.user = user
    self.authUser = authUser
    self.passwordFile = passwordFile
    self.transport = transport
    self.expirySeconds = expirySeconds
    self.outboundProxy = outboundProxy
    self.localAddress = localAddress
    self.localPort = localPort
    self.keepaliveSeconds = keepaliveSeconds
    self.verifyTLS = verifyTLS
    self.certificateDirectory = certificateDirectory
    self.rules = rules
    self.trusted = trusted
  }

  /// The address of record: `sip:201@pbx.example.com` (`sips:` over TLS).
  public var addressOfRecord: String {
    let host = domain ?? registrar.map(Self.hostPart) ?? localAddress ?? "localhost"
    return "\(transport == .tls ? "sips" : "sip"):\(user)@\(host)"
  }

  /// The registrar's URI with the transport: `sip:pbx.example.com:5060;transport=tcp`; nil without a registrar.
  public var registrarURI: String? { registrar.map(uri) }

  /// The outbound proxy's URI, with the transport.
  public var outboundProxyURI: String? { outboundProxy.map(uri) }

  /// Where the extension listens: `sip:127.0.0.1:5070`, `sip:*:*;transport=tcp`, `sips:*:*`.
  public var bindURI: String {
    let host = localAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "*"
    let port = localPort.map(String.init) ?? "*"
    switch transport {
    case .udp: return "sip:\(host):\(port)"
    case .tcp: return "sip:\(host):\(port);transport=tcp"
    case .tls: return "sips:\(host):\(port)"
    }
  }

  private func uri(_ hostAndPort: String) -> String {
    switch transport {
    case .udp: "sip:\(hostAndPort)"
    case .tcp: "sip:\(hostAndPort);transport=tcp"
    case .tls: "sips:\(hostAndPort)"
    }
  }

  /// `pbx.example.com` of `pbx.example.com:5060` (an IPv6 literal keeps its brackets).
  static func hostPart(_ hostAndPort: String) -> String {
    if hostAndPort.hasPrefix("["), let end = hostAndPort.firstIndex(of: "]") {
      return String(hostAndPort[...end])
    }
    return String(hostAndPort.prefix { $0 != ":" })
  }
}
