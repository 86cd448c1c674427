import CallAlertText

/// The config's `http:` section (and `callalert run --http ADDR:PORT`): where the daemon's HTTP API listens
/// and the secrets it checks. Off unless asked for; bound to loopback unless the address says otherwise.
public struct HTTPSettings: Equatable, Sendable {
  /// Where to listen.
  public var listen: HTTPListenAddress
  /// A file (mode 0600 or 0400) whose first line is the bearer token every route but `/healthz` asks for;
  /// required when `listen` is beyond loopback, optional on loopback.
  public var tokenFile: String?
  /// A file (mode 0600 or 0400) holding the Twilio account's auth token: when set, Twilio webhooks must carry
  /// a valid `X-Twilio-Signature`.
  public var twilioAuthTokenFile: String?
  /// A file (mode 0600 or 0400) holding the Vonage account's signature secret: when set, Vonage webhooks must
  /// carry a valid signed JWT (`Authorization: Bearer`, HS256), which then stands in for the bearer token.
  public var vonageSignatureSecretFile: String?
  /// The URL the providers call, up to and without `/v1/...` (e.g. `https://example.org/callalert`), for
  /// Twilio's signature and the URLs sipgate.io is told to call back; nil: `http://` and the request's Host.
  public var publicURL: String?
  /// Names besides loopback that a request's `Host` may carry when no token is set (a name this machine is
  /// reached by on the LAN or through a proxy), lower-cased; with a token every `Host` is served.
  public var allowedHosts: [String] = []
  /// Where each key was written (`file:line:column`, by key: `token_file`), so that a problem found at start,
  /// such as a token file others may read, names its place as the config's own errors do.
  public var places: [String: String] = [:]

  /// Creates settings.
  public init(
    listen: HTTPListenAddress, tokenFile: String? = nil, twilioAuthTokenFile: String? = nil, publicURL: String? = nil
  ) {
    self.listen = listen
    self.tokenFile = tokenFile
    self.twilioAuthTokenFile = twilioAuthTokenFile
    self.publicURL = publicURL
  }
}

/// An address and port to listen on: `8080` (loopback), `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:8080`,
/// `localhost:8080`. Port 0 asks the system for a free port.
public struct HTTPListenAddress: Equatable, Sendable, CustomStringConvertible {
  /// The host: an IPv4 or IPv6 literal (without brackets), or `localhost`.
  public var host: String
  /// The TCP port, 0 to 65535.
  public var port: Int

  /// Creates an address.
  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// Whether only this machine can reach it (127.0.0.0/8, ::1, localhost).
  public var isLoopback: Bool { Self.isLoopback(host) }

  /// Whether `name` is `localhost`, `::1` or an IPv4 literal in 127.0.0.0/8; a name that merely starts with
  /// `127.` (`127.0.0.1.example.org`, which anyone can point anywhere) is not.
  public static func isLoopback(_ name: String) -> Bool {
    if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil } && parts[0] == "127"
  }

  /// `127.0.0.1:8080`, `[::1]:8080`.
  public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

  /// Reads `ADDR:PORT`, `[IPv6]:PORT` or a bare `PORT` (on 127.0.0.1).
  ///
  /// - Returns: the address, or what is wrong with the text as a sentence (the caller adds the place).
  public static func parse(_ text: String) -> Result<HTTPListenAddress, HTTPListenAddressError> {
    let example = "write ADDR:PORT, e.g. 127.0.0.1:8080, [::1]:8080 or 0.0.0.0:8080"
    let shown = DisplayText.excerpt(text)
    var host = "127.0.0.1"
    var portText = Substring(text)
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else {
        return .failure(HTTPListenAddressError("'\(shown)' has no closing ']'; \(example)"))
      }
      host = String(text[text.index(after: text.startIndex)..<close])
      let rest = text[text.index(after: close)...]
      guard rest.hasPrefix(":") else {
        return .failure(HTTPListenAddressError("'\(shown)' has no ':PORT' after the address; \(example)"))
      }
      portText = rest.dropFirst()
      guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
        return .failure(HTTPListenAddressError("'\(DisplayText.excerpt(host))' is not an IPv6 address; \(example)"))
      }
    } else if let colon = text.lastIndex(of: ":") {
      host = String(text[..<colon])
      portText = text[text.index(after: colon)...]
      guard !host.contains(":") else {
        return .failure(HTTPListenAddressError("write an IPv6 address in brackets, e.g. [::1]:8080"))
      }
      guard host == "localhost" || isIPv4(host) else {
        return .failure(
          HTTPListenAddressError(
            "'\(DisplayText.excerpt(host))' is not an IPv4 address or localhost; \(example)"))
      }
    }
    guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
      let port = Int(portText), (0...65_535).contains(port)
    else {
      return .failure(
        HTTPListenAddressError("'\(DisplayText.excerpt(String(portText)))' is not a port from 0 to 65535; \(example)"))
    }
    return .success(HTTPListenAddress(host: host, port: port))
  }

  private static func isIPv4(_ text: String) -> Bool {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4
      && parts.allSatisfy { part in
        !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && Int(part)! <= 255
      }
  }
}

/// Why a listen address was refused.
public struct HTTPListenAddressError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong and how to write it.
  public var description: String

  /// Creates an error.
  public init(_ description: String) { self.description = description }
}
